"""The results layer: what turns run files into tables, statistics and pictures.

``tables`` (fold-averaged tables, the comparisons against all features), ``significance`` (the
tests and corrections they use), ``leaderboard`` (the board's statistics), ``published`` and
``paper_layout`` (ours beside a paper's printed numbers), ``htmlpage`` (Markdown as a report
page) and ``figures`` (every drawing and the registry of feature reports). The stages of
``ltrfs.pipeline`` call these; nothing here reads the config or plans a job.
"""
