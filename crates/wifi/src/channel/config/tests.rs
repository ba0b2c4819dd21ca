use super::*;
use crate::channel::fixed::FrameKind;
use crate::channel::propagation::friis_loss_db;

fn parse(json: &str) -> Result<ChannelConfig, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

fn stations(name: &str) -> Option<NodeId> {
    name.strip_prefix("sta").and_then(|n| n.parse().ok()).map(NodeId)
}

#[test]
fn default_is_an_error_free_fixed_channel() {
    let c = ChannelConfig::default();
    let m = c.build(&stations).unwrap();
    match m {
        ChannelModel::Fixed(f) => {
            assert_eq!(f.default_per().p(), 0.0);
            assert_eq!(f.scope(), FrameScope::Data);
            assert!(f.classes().is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.default_tx_power_dbm(), None);
}

#[test]
fn fixed_with_classes() {
    let c = parse(
        r#"{"model": "fixed", "per": 0.01, "frames": "all",
            "classes": [
              {"name": "class1", "stations": ["sta1", "sta2"]},
              {"name": "class2", "per_down": 0.3, "per_up": 0.05, "stations": ["sta3"]}
            ]}"#,
    )
    .unwrap();
    let ChannelModel::Fixed(f) = c.build(&stations).unwrap() else { panic!() };
    assert_eq!(f.scope(), FrameScope::All);
    assert_eq!(f.class_of(NodeId(1)).unwrap().name, "class1");
    assert_eq!(f.link_per(NodeId(0), NodeId(1), FrameKind::Data), 0.0);
    assert!((f.link_per(NodeId(0), NodeId(3), FrameKind::Data) - 0.3).abs() < 1e-15);
    assert!((f.link_per(NodeId(3), NodeId(0), FrameKind::Control) - 0.05).abs() < 1e-15);
    assert_eq!(f.link_per(NodeId(8), NodeId(9), FrameKind::Data), 0.01);
}

#[test]
fn snr_defaults() {
    let c = parse(r#"{"model": "snr"}"#).unwrap();
    assert_eq!(c, ChannelConfig::Snr(SnrConfig::default()));
    assert_eq!(c.default_tx_power_dbm(), Some(16.0206));
    let ChannelModel::Snr(s) = c.build(&stations).unwrap() else { panic!() };
    let pl = s.radio.budget.path_loss;
    assert_eq!(pl.exponent, 3.0);
    assert_eq!(pl.reference_distance_m, 1.0);
    assert!((pl.reference_loss_db - friis_loss_db(1.0, 5.15e9)).abs() < 1e-12);
    assert_eq!(s.radio.noise_figure_db, 7.0);
    assert_eq!(s.radio.ofdm_noise_bandwidth_hz, 20e6);
    assert_eq!(s.radio.dsss_noise_bandwidth_hz, 22e6);
    assert_eq!(s.radio.shadowing_sigma_db, 0.0);
    assert_eq!(s.radio.shadowing, ShadowingMode::PerFrame);
    assert_eq!(s.error, UnionBoundModel::default());
}

#[test]
fn snr_explicit_fields() {
    let c = parse(
        r#"{"model": "snr", "tx_power_dbm": 20.0, "error_model": "union_bound",
            "propagation": {"frequency_hz": 2.412e9, "exponent": 3.5, "reference_distance_m": 2.0,
                            "reference_loss_db": 50.0, "shadowing_sigma_db": 6.0,
                            "shadowing": "per_link", "tx_antenna_gain_dbi": 2.0,
                            "rx_antenna_gain_dbi": 1.0, "system_loss_db": 3.0},
            "noise": {"noise_figure_db": 9.0, "ofdm_bandwidth_hz": 16.6e6, "dsss_bandwidth_hz": 20e6}}"#,
    )
    .unwrap();
    let ChannelModel::Snr(s) = c.build(&stations).unwrap() else { panic!() };
    assert_eq!(s.radio.budget.path_loss.reference_loss_db, 50.0);
    assert_eq!(s.radio.budget.path_loss.reference_distance_m, 2.0);
    assert_eq!(s.radio.shadowing, ShadowingMode::PerLink);
    assert_eq!(s.radio.budget.system_loss_db, 3.0);
    assert_eq!(s.error.ofdm_noise_bandwidth_hz, 16.6e6);
    assert_eq!(s.error.dsss_noise_bandwidth_hz, 20e6);
}

#[test]
fn threshold_defaults_are_ns2() {
    let c = parse(r#"{"model": "threshold"}"#).unwrap();
    assert!((c.default_tx_power_dbm().unwrap() - 24.5).abs() < 1e-5);
    let ChannelModel::Threshold(t) = c.build(&stations).unwrap() else { panic!() };
    assert!((t.rx_threshold_dbm - (-64.3747)).abs() < 1e-3);
    assert!((t.cs_threshold_dbm.unwrap() - (-78.0715)).abs() < 1e-3);
}

#[test]
fn unknown_keys_and_models_are_rejected() {
    assert!(parse(r#"{"model": "fixed", "pre": 0.1}"#).unwrap_err().contains("pre"));
    assert!(parse(r#"{"model": "snr", "propagation": {"exponant": 3}}"#).unwrap_err().contains("exponant"));
    assert!(parse(r#"{"model": "snr", "noise": {"nf": 3}}"#).is_err());
    assert!(parse(r#"{"model": "rayleigh"}"#).is_err());
    assert!(parse(r#"{"model": "snr", "error_model": "nist"}"#).is_err());
    assert!(parse(r#"{"model": "fixed", "classes": [{"name": "a", "stations": [], "p": 1}]}"#).is_err());
    assert!(parse(r#"{"model": "snr", "propagation": {"shadowing": "per_packet"}}"#).is_err());
}

#[test]
fn bad_values_name_the_field() {
    let build = |json: &str| parse(json).unwrap().build(&stations).unwrap_err().to_string();
    assert_eq!(build(r#"{"model": "fixed", "per": 1.5}"#), "channel.per: must be a probability in [0, 1], got 1.5");
    assert!(build(r#"{"model": "fixed", "classes": [{"name": "a", "per_down": -1, "stations": []}]}"#)
        .starts_with("channel.classes[0].per_down: "));
    assert_eq!(
        build(r#"{"model": "fixed", "classes": [{"name": "a", "stations": ["sta1", "ap"]}]}"#),
        "channel.classes[0].stations[1]: unknown station 'ap'"
    );
    assert_eq!(
        build(
            r#"{"model": "fixed", "classes": [{"name": "a", "stations": ["sta1"]},
                                              {"name": "b", "stations": ["sta1"]}]}"#
        ),
        "channel.classes[1].stations[0]: station 'sta1' is already in class 'a'"
    );
    assert!(build(r#"{"model": "fixed", "classes": [{"name": "a", "stations": []}, {"name": "a", "stations": []}]}"#)
        .starts_with("channel.classes[1].name: duplicate"));
    assert!(build(r#"{"model": "snr", "propagation": {"exponent": 0}}"#).starts_with("channel.propagation.exponent: "));
    assert!(build(r#"{"model": "snr", "propagation": {"frequency_hz": -1}}"#)
        .starts_with("channel.propagation.frequency_hz: "));
    assert!(build(r#"{"model": "snr", "propagation": {"shadowing_sigma_db": -2}}"#)
        .starts_with("channel.propagation.shadowing_sigma_db: "));
    assert!(build(r#"{"model": "snr", "noise": {"ofdm_bandwidth_hz": 0}}"#)
        .starts_with("channel.noise.ofdm_bandwidth_hz: "));
}

#[test]
fn round_trips_through_serde() {
    for c in
        [ChannelConfig::default(), ChannelConfig::Snr(SnrConfig::default()), crate::channel::presets::janevski_petrov()]
    {
        let s = serde_json::to_string(&c).unwrap();
        assert_eq!(parse(&s).unwrap(), c, "{s}");
    }
}
