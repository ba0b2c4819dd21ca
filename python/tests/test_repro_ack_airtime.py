"""Paper 000's ACK-filter question on 802.11ac/ax (`p000_cuzanauskas`,
part ``ackairtime``): the rows and the verdict from hand-made runs, no
simulation."""

from wifitcp.repro import p000_cuzanauskas as m


def run(std, mcs, filt, agg, ack_air, all_air, ppdus=100, mpp=10.0, removed=0, seed=1):
    return {"params": {"phy.standard": std, "phy.mcs": mcs, "wlan.station_qdisc.kind": filt}, "seed": seed,
            "agg": agg, "duration_s": 10.0, "ack_air": ack_air, "all_air": all_air, "ack_ppdus": ppdus,
            "mpdus_per_ppdu": mpp, "removed": removed}


def cell(std, mcs, agg_off, agg_on, share_off, share_on):
    return [run(std, mcs, "drop-tail", agg_off, share_off / 100 * 5.0, 5.0),
            run(std, mcs, "ack-first", agg_on, share_on / 100 * 5.0, 5.0, removed=1000)]


def test_summary_reads_the_station_data_airtime_and_both_members():
    r = {"params": {}, "seed": 2, "aggregate_mbps": 300.0, "duration_s": 20.0,
         "ledger": {"dropped": {"ack_filtered": 7}},
         "stations": [{"name": "ap", "hcf": {"airtime_s": {"data": 10.0, "block_ack": 0.5}}},
                      {"name": "sta0", "hcf": {"airtime_s": {"data": 0.4, "block_ack": 0.1},
                                               "data_ppdus": 400, "mean_mpdus_per_ppdu": 30.0}}]}
    s = m.ack_airtime_summary(r)
    assert s["ack_air"] == 0.4 and abs(s["all_air"] - 11.0) < 1e-12
    assert (s["ack_ppdus"], s["mpdus_per_ppdu"], s["removed"], s["agg"]) == (400, 30.0, 7, 300.0)


def test_rows_are_ordered_and_averaged_over_seeds():
    runs = cell("802.11ax", 11, 400, 410, 6.0, 3.0) + cell("802.11ac", 0, 26, 27, 4.0, 2.0)
    runs += [run("802.11ax", 11, "drop-tail", 420, 0.2, 5.0, seed=2)]
    rows = m.ack_airtime_rows(runs)
    assert [(x["standard"], x["mcs"]) for x in rows] == [("802.11ac", 0), ("802.11ax", 11)]
    ax = rows[1]["off"]
    assert ax["seeds"] == 2 and abs(ax["agg"] - 410) < 1e-9 and abs(ax["share"] - 5.0) < 1e-9


def test_verdicts():
    grows = cell("802.11ac", 0, 26, 27, 4.0, 2.0) + cell("802.11ac", 9, 320, 328, 5.0, 2.0)
    v, _, text = m.ack_airtime_verdict(m.ack_airtime_rows(grows))
    assert v == "holds" and "4.0 % at MCS 0 -> 5.0 % at MCS 9" in text
    # the share falls with the rate: the direction of the question fails
    flat = cell("802.11ac", 0, 26, 27, 5.0, 2.0) + cell("802.11ac", 9, 320, 328, 4.0, 2.0)
    assert m.ack_airtime_verdict(m.ack_airtime_rows(flat))[0] == "partial"
    # the filter costs goodput somewhere
    loss = cell("802.11ac", 0, 26, 25, 4.0, 2.0) + cell("802.11ac", 9, 320, 328, 5.0, 2.0)
    assert m.ack_airtime_verdict(m.ack_airtime_rows(loss))[0] == "differs"
    # a gain above the paper's 10 %
    big = cell("802.11ac", 0, 26, 30, 4.0, 2.0) + cell("802.11ac", 9, 320, 328, 5.0, 2.0)
    assert m.ack_airtime_verdict(m.ack_airtime_rows(big))[0] == "partial"
