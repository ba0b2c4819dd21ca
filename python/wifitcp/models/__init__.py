"""Analytical models the simulator is checked against (docs/models.md).

``bianchi`` (DCF saturation), ``slotted`` (slot-level DCF Monte Carlo),
``pokhrel`` (Compound TCP over 802.11 in SNR classes, paper 004 eqs. 2-20),
``vbs_stability`` (paper 004 eqs. 23-30, Fig. 18), ``tcp_throughput``
(Mathis, Padhye), ``power_game`` (paper 000 eqs. 1-3), ``overlay`` (model
curves per figure). Bad input raises ``errors.ModelError`` (a ValueError
naming the parameter).
"""
