"""The counting core: integer codes, frequency sets, lattice, node evaluation, suppressed groups."""
