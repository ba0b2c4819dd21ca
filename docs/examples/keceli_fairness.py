# %% [markdown]
# # Uplink TCP fairness at an AP, from Python
#
# A notebook-style script (cells marked `# %%`: open it in Jupyter with
# jupytext, in VS Code, or run it whole with `python`). It runs a small
# version of Keceli et al. Figs. 3-4 - the Jain index of n uplink TCP flows
# for three AP queue schemes - as a resumable campaign, then looks at the
# results as data frames and draws the figure with confidence intervals.
#
#     .venv/bin/python docs/examples/keceli_fairness.py
#
# Environment knobs (the test suite runs it small): WIFITCP_EXAMPLE_DURATION
# (simulated seconds per run, default 40), WIFITCP_EXAMPLE_OUT (directory,
# default results/example).

# %%
import os
from pathlib import Path

import wifitcp

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "keceli-fairness.toml"
DURATION = float(os.environ.get("WIFITCP_EXAMPLE_DURATION", "40"))
OUT = Path(os.environ.get("WIFITCP_EXAMPLE_OUT", "results/example"))
STORE = OUT / "keceli-small.duckdb"

# %% [markdown]
# ## Run the sweep
#
# `wifitcp.sweep` takes the scenario file, extra grid axes and the seeds.
# The scenario already sweeps `ap.qdisc.kind` over three cases; here we
# narrow `wlan.stations` and shorten the runs. With `out=` every finished run
# is stored at once, so running this cell again (or after an interruption)
# only runs what is missing. `dask="tcp://scheduler:8786"` would send the
# runs to a cluster instead of local worker processes.

# %%
df = wifitcp.sweep(
    SCENARIO,
    {"wlan.stations": [1, 3, 6, 9]},
    seeds="1..2",
    set=[f"scenario.duration_s={DURATION}", "scenario.name=keceli-small"],
    jobs=2,
    out=STORE,
)
print(df[["ap.qdisc.kind", "wlan.stations", "seed", "jain_index", "aggregate_mbps"]])

# %% [markdown]
# ## Summarise: mean over seeds, one column per scheme

# %%
table = df.pivot_table(index="wlan.stations", columns="ap.qdisc.kind",
                       values="jain_index", aggfunc="mean")
print(table.round(3))

# %% [markdown]
# The same frame in polars, and the per-flow rows from the store (the
# `flows` table: one row per TCP flow of each run).

# %%
import polars as pl  # noqa: E402

pf = wifitcp.run(SCENARIO, sweep={"wlan.stations": [1, 3, 6, 9]}, seeds="1..2",
                 set=[f"scenario.duration_s={DURATION}", "scenario.name=keceli-small"],
                 out=STORE, frame="polars")   # all stored already: nothing runs
print(pf.group_by("ap.qdisc.kind").agg(pl.col("aggregate_mbps").mean()).sort("ap.qdisc.kind"))

with wifitcp.Store(STORE, read_only=True) as st:
    flows = st.frame("""
        SELECT r.params->>'$."ap.qdisc.kind"' AS scheme,
               CAST(r.params->>'$."wlan.stations"' AS INTEGER) AS n,
               min(f.goodput_mbps) AS worst_flow_mbps, max(f.goodput_mbps) AS best_flow_mbps
        FROM flows f JOIN runs r USING (run_id)
        GROUP BY ALL ORDER BY scheme, n""")
print(flows)

# %% [markdown]
# ## The figure: mean and 95 % confidence interval across seeds
#
# `wifitcp.plot` is what `wifitcp plot` uses: select the runs, group them
# by line and x, draw PNG and SVG.

# %%
from wifitcp import plot  # noqa: E402

sel = plot.select(str(STORE), x="wlan.stations", y="jain_index", by="ap.qdisc.kind")
paths = plot.draw(sel, str(OUT / "keceli-small-jain"), title="Jain index (small run)")
print(plot.render(sel))
print("figure:", *paths)
