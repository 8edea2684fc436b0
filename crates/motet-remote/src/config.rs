//! [`NodeConfig`]: how a node joins Zenoh (endpoints, scouting, lease) and its limits.

use std::time::Duration;

/// How a [`Node`](crate::Node) joins the network. Defaults: peer mode, multicast scouting off, no
/// endpoints (set [`listen`](NodeConfig::listen) and/or [`connect`](NodeConfig::connect)), link lease
/// 10 s, frames up to 16 MiB.
#[derive(Clone, Debug)]
pub struct NodeConfig {
    pub(crate) namespace: String,
    pub(crate) listen: Vec<String>,
    pub(crate) connect: Vec<String>,
    pub(crate) router: bool,
    pub(crate) multicast_scouting: bool,
    pub(crate) lease: Duration,
    pub(crate) max_frame: usize,
    pub(crate) outbound_high_water: usize,
    pub(crate) tls: Option<TlsConfig>,
}

/// TLS settings for Zenoh's `tls/` endpoints (PEM files).
#[derive(Clone, Debug)]
pub struct TlsConfig {
    /// The certificate authority that signs every node's certificate.
    pub root_ca: String,
    /// This node's certificate (chain).
    pub cert: String,
    /// This node's private key.
    pub key: String,
    /// Require and check the peer's certificate on accepted links too (mutual TLS).
    pub mutual: bool,
}

impl Default for NodeConfig {
    fn default() -> NodeConfig {
        NodeConfig {
            namespace: "default".into(),
            listen: Vec::new(),
            connect: Vec::new(),
            router: false,
            multicast_scouting: false,
            lease: Duration::from_secs(10),
            max_frame: 16 << 20,
            outbound_high_water: 1 << 16,
            tls: None,
        }
    }
}

impl NodeConfig {
    /// The defaults.
    pub fn new() -> NodeConfig {
        NodeConfig::default()
    }

    /// The key space prefix `motet/<namespace>/`: nodes only see nodes of the same namespace.
    pub fn namespace(mut self, ns: &str) -> NodeConfig {
        self.namespace = ns.to_owned();
        self
    }

    /// Listens on a Zenoh endpoint, e.g. `tcp/127.0.0.1:7447`.
    pub fn listen(mut self, endpoint: &str) -> NodeConfig {
        self.listen.push(endpoint.to_owned());
        self
    }

    /// Connects to a Zenoh endpoint (a peer or a router), e.g. `tcp/127.0.0.1:7447`.
    pub fn connect(mut self, endpoint: &str) -> NodeConfig {
        self.connect.push(endpoint.to_owned());
        self
    }

    /// Runs the session in Zenoh's router mode instead of peer mode (for a hub node).
    pub fn router(mut self, on: bool) -> NodeConfig {
        self.router = on;
        self
    }

    /// Finds peers by UDP multicast (off by default).
    pub fn multicast_scouting(mut self, on: bool) -> NodeConfig {
        self.multicast_scouting = on;
        self
    }

    /// Zenoh's link lease: a peer that sends nothing (not even a keep-alive) for this long is
    /// declared down. It bounds the detection time of a hung or partitioned node; a crashed node is
    /// detected as soon as its TCP connection closes.
    pub fn lease(mut self, lease: Duration) -> NodeConfig {
        self.lease = lease;
        self
    }

    /// Frames larger than this are rejected unread (default 16 MiB).
    pub fn max_frame(mut self, bytes: usize) -> NodeConfig {
        self.max_frame = bytes;
        self
    }

    /// The outbound queue length above which [`Node::wait_writable`](crate::Node::wait_writable)
    /// makes threads wait (default 65,536 frames).
    pub fn outbound_high_water(mut self, frames: usize) -> NodeConfig {
        self.outbound_high_water = frames.max(1);
        self
    }

    /// Uses TLS: endpoints should then be `tls/host:port`.
    pub fn tls(mut self, tls: TlsConfig) -> NodeConfig {
        self.tls = Some(tls);
        self
    }

    /// The Zenoh configuration these settings make.
    pub(crate) fn to_zenoh(&self) -> Result<zenoh::Config, String> {
        let mut c = zenoh::Config::default();
        let json = |v: &dyn erased::Json| v.json();
        let set = |c: &mut zenoh::Config, k: &str, v: String| {
            c.insert_json5(k, &v)
                .map_err(|e| format!("zenoh setting {k} = {v}: {e}"))
        };
        set(
            &mut c,
            "mode",
            json(&(if self.router { "router" } else { "peer" })),
        )?;
        set(
            &mut c,
            "scouting/multicast/enabled",
            self.multicast_scouting.to_string(),
        )?;
        set(&mut c, "listen/endpoints", json(&self.listen))?;
        set(&mut c, "connect/endpoints", json(&self.connect))?;
        set(
            &mut c,
            "transport/link/tx/lease",
            (self.lease.as_millis().max(1) as u64).to_string(),
        )?;
        // A connect endpoint that is not up yet is retried rather than fatal.
        set(&mut c, "connect/exit_on_failure", "false".into())?;
        set(&mut c, "listen/exit_on_failure", "true".into())?;
        if let Some(tls) = &self.tls {
            set(
                &mut c,
                "transport/link/tls/root_ca_certificate",
                json(&tls.root_ca),
            )?;
            set(
                &mut c,
                "transport/link/tls/listen_certificate",
                json(&tls.cert),
            )?;
            set(
                &mut c,
                "transport/link/tls/listen_private_key",
                json(&tls.key),
            )?;
            set(
                &mut c,
                "transport/link/tls/connect_certificate",
                json(&tls.cert),
            )?;
            set(
                &mut c,
                "transport/link/tls/connect_private_key",
                json(&tls.key),
            )?;
            set(
                &mut c,
                "transport/link/tls/enable_mtls",
                tls.mutual.to_string(),
            )?;
        }
        Ok(c)
    }
}

mod erased {
    /// A value written as a JSON5 literal.
    pub trait Json {
        fn json(&self) -> String;
    }
    impl Json for &str {
        fn json(&self) -> String {
            format!("{self:?}")
        }
    }
    impl Json for String {
        fn json(&self) -> String {
            format!("{self:?}")
        }
    }
    impl Json for Vec<String> {
        fn json(&self) -> String {
            let items: Vec<String> = self.iter().map(|s| format!("{s:?}")).collect();
            format!("[{}]", items.join(","))
        }
    }
}
