"""The stages of the workflow, one module each, named as the rule file that calls it:

    workflow/rules/prepare.smk      ltrfs.pipeline.prepare      download, prepare
    workflow/rules/score.smk        ltrfs.pipeline.score        score, score_chunk
    workflow/rules/select.smk       ltrfs.pipeline.select       select
    workflow/rules/train.smk        ltrfs.pipeline.train        train (and its batches), reference, rescore
    workflow/rules/tables.smk       ltrfs.pipeline.tables       tables, tables_as, published, top_features
    workflow/rules/artefacts.smk    ltrfs.pipeline.artefacts    report_data, figure_metric_vs_k, artefact
    workflow/rules/leaderboard.smk  ltrfs.pipeline.leaderboard  leaderboard

A stage module holds the stage's entry points (what the rule's script calls: read the inputs,
call the package, write the outputs atomically) and, in a class ``*Planning``, the
input-planning functions its rules use (inputs, params, threads, targets as functions of the
wildcards). ``ltrfs.pipeline.plan.Plan`` gathers the planning classes into the one object the
Snakefile builds from the config and the dataset registry; ``ltrfs.pipeline.run.Run`` is their
common base (the config's own questions). ``ltrfs.pipeline.resources`` sizes the jobs.
"""
