# The library versions that made the results folder (ltrfs.environment): recorded in
# {results}/versions.json when a run starts (onstart), shown on a page of the report.


rule environment:
    """The report's page of the library versions that made the results (and of later runs)."""
    output:
        md=f"{RESULTS}/versions.md",
        html=report(f"{RESULTS}/versions.html", caption="../report/versions.rst", category="Environment",
                    labels={"figure": "library versions"}),
    params:  # this run's versions: the page is remade when they change
        versions=library_versions(),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        f"logs/environment/{PLAN.run.config['run_name']}.log",
    benchmark:
        f"benchmarks/environment/{PLAN.run.config['run_name']}.tsv"
    script:
        "../scripts/environment.py"
