"""The stages of the workflow, one module each, named as the rule file that calls it:

    workflow/rules/prepare.smk      ltrfs.pipeline.prepare      download, prepare
    workflow/rules/score.smk        ltrfs.pipeline.score        score, score_chunk
    workflow/rules/select.smk       ltrfs.pipeline.select       select
    workflow/rules/train.smk        ltrfs.pipeline.train        train (and its batches), reference, rescore
    workflow/rules/tables.smk       ltrfs.pipeline.tables       tables, tables_as, published, top_features
    workflow/rules/figures.smk    ltrfs.pipeline.figures    report_data, figure_metric_vs_k, feature_report
    workflow/rules/leaderboard.smk  ltrfs.pipeline.leaderboard  leaderboard

A stage module holds the stage's entry points (what the rule's script calls: read the inputs,
call the package, write the outputs atomically) and nothing of the other stages, so that a job
imports only its own stage. The stage's planning (inputs, params, threads and targets as
functions of the wildcards) is a planner of its own in ``ltrfs.pipeline.planning.<stage>``,
used only by the Snakefile's process: ``ltrfs.pipeline.plan.Plan`` composes the planners into
the one ``PLAN`` (``PLAN.train.ks``, ...), each built with the ``Run``
(``ltrfs.pipeline.run.Run``: the config's own questions) and the earlier planners it asks.
``ltrfs.pipeline.resources`` sizes the jobs.
"""
