//! Signs in through KeyringAuth's broker from Rust, with zbus (Debian's librust-zbus-dev):
//!
//!     broker-client API_KEY APP_ID PROJECT_ID GROUP
//!
//! Watches the group, uses its user when one is signed in (else signs in anonymously), prints who and the
//! length of a fresh ID token, then waits until another user (or nobody) is signed in, prints it, and exits.
//! Output lines: "user UID", "token N", "watching", "changed UID" ("changed none" when signed out).
//! With FIREBASE_AUTH_EMULATOR_HOST set (127.0.0.1:9099), the broker sends this app's calls to that Auth emulator
//! (a sandboxed app needs --share=network for it).
use std::collections::HashMap;
use std::convert::TryFrom;
use zvariant::{OwnedValue, Value};

const NAME: &str = "io.github.keyringauth.Broker1";
const PATH: &str = "/io/github/keyringauth/Broker1";

type User = HashMap<String, OwnedValue>;

fn uid(user: &User) -> String {
    user.get("uid").and_then(|value| <&str>::try_from(value).ok()).unwrap_or("none").to_string()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: broker-client API_KEY APP_ID PROJECT_ID GROUP");
        std::process::exit(2);
    }
    let mut app: HashMap<&str, Value> = HashMap::new();
    app.insert("apiKey", Value::from(args[1].as_str()));
    app.insert("appID", Value::from(args[2].as_str()));
    app.insert("projectID", Value::from(args[3].as_str()));
    let emulator = std::env::var("FIREBASE_AUTH_EMULATOR_HOST").unwrap_or_default();
    if !emulator.is_empty() {
        app.insert("emulatorHost", Value::from(emulator.as_str()));
    }
    let group = args[4].as_str();

    let bus = zbus::Connection::new_session()?;
    let call = |method: &str| bus.call_method(Some(NAME), PATH, Some(NAME), method, &(&app, group));
    // Errors are D-Bus errors named io.github.keyringauth.Broker1.Error.*, with a message that says what to do.
    call("Watch")?;
    let mut user: User = call("GetUser")?.body()?;
    if user.is_empty() {
        user = call("SignInAnonymously")?.body()?;
    }
    let current = uid(&user);
    println!("user {}", current);
    let token: String = bus.call_method(Some(NAME), PATH, Some(NAME), "GetIDToken", &(&app, group, false))?.body()?;
    println!("token {}", token.len());
    println!("watching");

    // UserChanged comes to this connection only, after Watch.
    loop {
        let message = bus.receive_message()?;
        let header = message.header()?;
        if header.message_type()? != zbus::MessageType::Signal || header.member()? != Some("UserChanged") {
            continue;
        }
        let (_app, _group, changed): (HashMap<String, OwnedValue>, String, User) = message.body()?;
        if uid(&changed) != current {
            println!("changed {}", uid(&changed));
            return Ok(());
        }
    }
}
