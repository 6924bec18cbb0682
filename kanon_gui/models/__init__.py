"""Qt item models adapting engine objects (tables, hierarchies, results) for views."""
