"""The planning of each stage, one module a stage, named as the stage: the functions its rules use
for inputs, params, threads and targets, as functions of the wildcards.

Only the Snakefile's process uses them, through the one ``PLAN`` (``ltrfs.pipeline.plan.Plan``);
a job imports its stage's entry points (``ltrfs.pipeline.<stage>``) and none of these. Each
planner is built with the ``Run`` (``ltrfs.pipeline.run.Run``: the config's own questions) and
the earlier planners it asks, named: the tables ask train which (method, ranker) pairs rank, the
leaderboard asks score how a scorer is chunked and the tables which metric each table uses.
"""
