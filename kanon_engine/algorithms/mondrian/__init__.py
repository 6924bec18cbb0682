"""Mondrian (LeFevre, DeWitt & Ramakrishnan 2006): the algorithm, its engine, workload-aware cuts."""
