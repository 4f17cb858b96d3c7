"""The figures, drawn with matplotlib's Agg backend, each saved as PNG (and PDF) with the numbers
it shows written beside it as CSV.

One module a family: ``curves`` (metric against k, a paper's figure in its form), ``features``
(the drawings of the feature reports), ``board`` (the leaderboard's figures); ``style`` is what
they share; ``registry`` declares every feature report (its inputs, when it applies, how it is
drawn) and ``feature_reports`` reads run files into those drawings.
"""
