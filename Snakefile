# Feature selection for learning to rank, one rule file per stage: prepare (download, parse) ->
# score -> select -> train (and evaluate) -> tables -> figures -> leaderboard. Each rule
# file calls the package module of the same name, ltrfs.pipeline.<stage> (docs/architecture.md).
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/select.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/leaderboard.smk"
include: "workflow/rules/environment.smk"


rule all:
    input:
        PLAN.all_targets(),
    default_target: True


# who holds the working directory's lock, so that a run killed without unlocking (kill -9, a
# power cut) does not block the next one: ltrfs.runlock
onstart:
    runlock.claim()
    if (_note := check_results_folder(RESULTS)) is not None:  # the library versions of the results folder
        print(f"ltrfs: note: {_note}", file=sys.stderr)


onsuccess:
    runlock.release()
    print(PLAN.summary(), end="", file=sys.stderr)


onerror:
    runlock.release()
