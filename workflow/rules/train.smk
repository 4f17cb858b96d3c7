rule train:
    """Train the ranker on every k of the selection (grid on vali), and evaluate the models on
    vali and test in the same job (the run file)."""
    input:
        unpack(own_selector),
        selection=f"{FOLD}/select/{{method}}.json",
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.pkl",
        info=f"{FOLD}/models/{{method}}/{{ranker}}.json",
        run=f"{FOLD}/runs/{{method}}/{{ranker}}.tsv",
    params:
        ranker=ranker_config,
        k=train_ks,
        metric=train_metric,
        convention=convention,
        ties=config["ties"],
        run_ties={"vali": config["ties"], "test": config["evaluation_ties"]},
        seed=train_seed,
    threads: train_threads
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/train/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/train/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(30, 1),
    script:
        "../scripts/train.py"


# train_batch (default): one job per (dataset, fold, method) trains all the method's rankers in
# turn (workflow/scripts/train_batch.py) and writes the same files, logs included, as the
# per-ranker jobs of rule train would; rule train stays for any file no batch makes.
BATCH_RULES = {}
if config["train_batch"]:
    for (_dataset, _method), _rankers in train_batches(config).items():
        _rankers = [r for r in _rankers if ranks_itself(_method, r)]
        _name = batch_rule_name(_dataset, _method)
        if not _rankers or _name in BATCH_RULES.values():  # a name clash keeps rule train for the second
            continue
        BATCH_RULES[(_dataset, _method)] = _name
        _fold = f"{RESULTS}/{_dataset}/fold{{fold}}"
        _own = any(config["rankers"][r]["algorithm"] == OWN for r in _rankers)

        rule:
            name:
                _name
            input:
                selection=f"{_fold}/select/{_method}.json",
                train=f"{_fold}/data/train.npz",
                vali=f"{_fold}/data/vali.npz",
                test=f"{_fold}/data/test.npz",
                **({"selector": f"{_fold}/select/{_method}.pkl"} if _own else {}),
            output:
                [f"{_fold}/{folder}/{_method}/{r}.{ext}" for r in _rankers
                 for folder, ext in (("models", "pkl"), ("models", "json"), ("runs", "tsv"))],
            params:
                jobs=lambda w, d=_dataset, m=_method, rs=tuple(_rankers): batch_jobs(d, m, rs, w.fold),
                convention=lambda w, d=_dataset: convention_of(config, REGISTRY, d),
                ties=config["ties"],
                run_ties={"vali": config["ties"], "test": config["evaluation_ties"]},
            threads: max(train_threads(Namespace(dataset=_dataset, method=_method, ranker=r)) for r in _rankers)
            conda:
                "../../envs/ltrfs.yaml"
            log:
                [f"logs/train/{_dataset}/fold{{fold}}/{_method}/{r}.log" for r in _rankers],
            benchmark:
                f"benchmarks/train/{_dataset}/fold{{fold}}/{_method}.tsv"
            resources:
                mem_mb=scaled(500, 4),
                runtime=scaled(30 * len(_rankers), len(_rankers)),
            script:
                "../scripts/train_batch.py"

        workflow.ruleorder(_name, "train")
