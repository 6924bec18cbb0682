"""Pure presentation geometry (no Qt): partition boxes, calendar steps, lattice layout, chart data."""
