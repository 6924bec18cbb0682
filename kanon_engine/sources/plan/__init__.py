"""The run plan: counting a source into points, the floor, Mondrian's cut tree, release plans, the sink."""
