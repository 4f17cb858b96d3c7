"""Snakemake adapter: the leaderboard of the run's selectors (ltrfs.results.leaderboard)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.leaderboard import leaderboard_records, write_leaderboard

log_to(snakemake.log[0])
records = leaderboard_records(**snakemake.params.spec)
write_leaderboard(records["tables"], records["selections"], records["costs"], dict(snakemake.output.items()),
                  ks=snakemake.params.ks, baselines=snakemake.params.baselines, own=snakemake.params.own,
                  truths=snakemake.params.truths, margin=snakemake.params.margin,
                  families=snakemake.params.families)
