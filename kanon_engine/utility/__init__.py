"""The researcher's view: does the release still answer the study's questions?

Information-loss figures tell a steward what a release gave up; a research team asks something else: can
we still fit our model, do the variables still look as they did? ARX 3.9.2 answers with classifiers
trained on the original and on the release beside the majority baseline, and with per-attribute summaries
and contingency tables before and after; so does kanon, headless (``python -m kanon_engine utility``), in
the workbench's Utility page and in the report's "fitness for the study" section.

- :mod:`.values`: how released cells are read back (numbers, ranges, generalized categories, '*');
- :mod:`.classifiers`: cross-validated logistic regression, naive Bayes and random forest (scikit-learn);
- :mod:`.summaries`: per-attribute summaries and the distance between the distributions;
- :mod:`.contingency`: two attributes cross-tabulated before and after;
- :mod:`.study`: one call that runs them all and the plain words the report and the workbench show.

The classification *metric* that steers a search towards a predictable target is a search objective, so it
lives with the others (:mod:`kanon_engine.metrics.classification`).
"""
