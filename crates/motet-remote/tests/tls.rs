//! Zenoh's TLS transport between two nodes, with certificates made at test time by the `openssl`
//! program: a node with a certificate signed by the cluster's CA is accepted; with mutual TLS on,
//! a node whose certificate another CA signed is refused.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use motet_actor::spawn;
use motet_remote::testing::{free_port, Echo, EchoActor};
use motet_remote::{LookupError, Node, NodeConfig, RemoteReply, TlsConfig};

fn openssl(dir: &Path, args: &[&str]) {
    let status = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the openssl program");
    assert!(status.success(), "openssl {args:?}");
}

/// Makes `<ca>.pem`/`<ca>.key` (once) and `<name>.pem`/`<name>.key` signed by it, for localhost.
fn make_cert(dir: &Path, ca: &str, name: &str) {
    if !dir.join(format!("{ca}.pem")).exists() {
        openssl(
            dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                &format!("/CN={ca}"),
                "-keyout",
                &format!("{ca}.key"),
                "-out",
                &format!("{ca}.pem"),
            ],
        );
    }
    std::fs::write(
        dir.join(format!("{name}.ext")),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            &format!("{ca}.pem"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            &format!("{name}.ext"),
            "-out",
            &format!("{name}.pem"),
        ],
    );
}

fn tls(dir: &Path, ca: &str, name: &str, mutual: bool) -> TlsConfig {
    let p = |f: String| dir.join(f).to_string_lossy().into_owned();
    TlsConfig {
        root_ca: p(format!("{ca}.pem")),
        cert: p(format!("{name}.pem")),
        key: p(format!("{name}.key")),
        mutual,
    }
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("motet-remote-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn tls_links_work_and_a_foreign_certificate_is_refused() {
    let dir = scratch();
    make_cert(&dir, "ca", "server");
    make_cert(&dir, "ca", "client");
    make_cert(&dir, "rogue", "intruder");

    let rt = motet_runtime::Runtime::builder()
        .workers(2)
        .build()
        .unwrap();
    let port = free_port();
    let server = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("tls")
            .listen(&format!("tls/localhost:{port}"))
            .tls(tls(&dir, "ca", "server", true)),
    )
    .expect("TLS server node");
    server
        .publish("echo", &spawn(rt.handle(), EchoActor::default()))
        .unwrap();

    let client = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("tls")
            .connect(&format!("tls/localhost:{port}"))
            .tls(tls(&dir, "ca", "client", true)),
    )
    .expect("TLS client node");
    let echo = client
        .lookup::<Echo>("echo", Duration::from_secs(30))
        .expect("lookup over TLS");
    let answer = echo
        .ask(
            |r| Echo::Ping(9, RemoteReply::from(r)),
            Duration::from_secs(30),
        )
        .wait();
    assert_eq!(answer, Ok(9));

    // A peer that trusts the cluster's CA but presents a certificate another CA signed is refused
    // by the server (mutual TLS).
    let mut bad = tls(&dir, "rogue", "intruder", true);
    bad.root_ca = tls(&dir, "ca", "client", true).root_ca;
    let intruder = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("tls")
            .connect(&format!("tls/localhost:{port}"))
            .tls(bad),
    )
    .expect("the intruder's node starts (it just cannot connect)");
    assert_eq!(
        intruder.lookup::<Echo>("echo", Duration::from_secs(3)),
        Err(LookupError::Timeout)
    );
    // A plain TCP peer cannot talk to a TLS endpoint either.
    let plain = Node::start(
        rt.handle(),
        NodeConfig::new()
            .namespace("tls")
            .connect(&format!("tcp/127.0.0.1:{port}")),
    )
    .expect("the plain node starts");
    assert_eq!(
        plain.lookup::<Echo>("echo", Duration::from_secs(3)),
        Err(LookupError::Timeout)
    );
    drop((intruder, plain, client, server));
    let _ = std::fs::remove_dir_all(&dir);
}
