# Feature selection for learning to rank: download -> prepare -> score -> select -> train ->
# evaluate -> tables -> figures. The rules only wire files to the `ltrfs` package.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/select.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/leaderboard.smk"


rule all:
    input:
        all_targets(),
    default_target: True


# who holds the working directory's lock, so that a run killed without unlocking (kill -9, a
# power cut) does not block the next one: ltrfs.runlock
onstart:
    runlock.claim()


onsuccess:
    runlock.release()


onerror:
    runlock.release()
