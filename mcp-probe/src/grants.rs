//! The OAuth grants without a user, as the probe's flags and the
//! conformance suite's context name them (client credentials with a
//! secret or a private key, workload identity, enterprise-managed).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_era_client::auth::{
    ClientAuth, Credential, Enterprise, Grant, SecretMethod, SigningKey, TokenSource,
};
use serde_json::Value;

/// The `--oauth-*` flags of the grants without a user (with the probe's
/// `--oauth-client-id` and `--oauth-client-secret`).
#[derive(clap::Args, Debug)]
pub(crate) struct GrantArgs {
    /// Use the client credentials grant (no user): --oauth-client-id with
    /// a secret or --oauth-private-key (private_key_jwt).
    #[arg(long, requires = "oauth_client_id")]
    pub(crate) oauth_client_credentials: bool,

    /// A private key (PKCS#8 PEM or a private JWK) for private_key_jwt.
    #[arg(long, value_name = "FILE", requires = "oauth_client_id")]
    pub(crate) oauth_private_key: Option<PathBuf>,

    /// The private key's algorithm (ES256, ES384, EdDSA, RS256, PS256…);
    /// else chosen from what the authorization server supports.
    #[arg(long, requires = "oauth_private_key")]
    pub(crate) oauth_signing_alg: Option<String>,

    /// Workload identity: the JWT bearer grant with the token in FILE,
    /// read again on each grant.
    #[arg(long, value_name = "FILE", requires = "oauth_client_id")]
    pub(crate) oauth_workload_token: Option<PathBuf>,

    /// Enterprise-managed authorization: the user's ID token in FILE,
    /// exchanged at --oauth-idp-token-endpoint for an ID-JAG.
    #[arg(long, value_name = "FILE", requires_all = ["oauth_idp_token_endpoint", "oauth_idp_client_id"])]
    pub(crate) oauth_id_token: Option<PathBuf>,

    /// The enterprise IdP's token endpoint.
    #[arg(long, requires = "oauth_id_token")]
    pub(crate) oauth_idp_token_endpoint: Option<String>,

    /// The client id at the enterprise IdP.
    #[arg(long, requires = "oauth_id_token")]
    pub(crate) oauth_idp_client_id: Option<String>,
}

/// A key file: a JWK when it holds a JSON object, else PKCS#8 PEM.
fn key_file(path: &Path, alg: Option<&str>) -> Result<SigningKey, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--oauth-private-key {}: {e}", path.display()))?;
    let key = if text.trim_start().starts_with('{') {
        SigningKey::from_jwk(&text, alg)
    } else {
        SigningKey::from_pem(&text, alg)
    };
    key.map_err(|e| format!("--oauth-private-key {}: {e}", path.display()))
}

/// The grant the flags ask for (`None`: the authorization code flow).
pub(crate) fn from_flags(
    f: &GrantArgs,
    client_id: Option<&str>,
    client_secret: Option<String>,
) -> Result<Option<Grant>, String> {
    let machine = f.oauth_client_credentials
        || f.oauth_workload_token.is_some()
        || f.oauth_id_token.is_some();
    if !machine {
        return Ok(None);
    }
    let Some(client_id) = client_id else {
        return Err("the machine grants need --oauth-client-id".into());
    };
    let credential = match (&f.oauth_private_key, client_secret) {
        (Some(path), _) => Credential::PrivateKey(key_file(path, f.oauth_signing_alg.as_deref())?),
        (None, Some(secret)) => Credential::Secret {
            secret,
            method: SecretMethod::Auto,
        },
        (None, None) => Credential::None,
    };
    let client = ClientAuth::new(client_id, credential);
    if let Some(path) = &f.oauth_workload_token {
        return Ok(Some(Grant::WorkloadIdentity {
            client,
            token: TokenSource::File(path.clone()),
        }));
    }
    if let Some(path) = &f.oauth_id_token {
        let (Some(endpoint), Some(idp_client_id)) =
            (&f.oauth_idp_token_endpoint, &f.oauth_idp_client_id)
        else {
            return Err(
                "--oauth-id-token needs --oauth-idp-token-endpoint and --oauth-idp-client-id"
                    .into(),
            );
        };
        return Ok(Some(Grant::Enterprise(Enterprise {
            idp_token_endpoint: endpoint.clone(),
            idp_issuer: None,
            idp_client: ClientAuth::new(idp_client_id.clone(), Credential::None),
            id_token: TokenSource::File(path.clone()),
            client,
        })));
    }
    if matches!(client.credential, Credential::None) {
        return Err(
            "--oauth-client-credentials needs --oauth-client-secret (or MCP_OAUTH_CLIENT_SECRET) or --oauth-private-key"
                .into(),
        );
    }
    Ok(Some(Grant::ClientCredentials(client)))
}

/// A token handed over in the context, as a [`TokenSource`].
fn fixed(token: &str) -> TokenSource {
    let token = token.to_owned();
    TokenSource::Callback(Arc::new(move || Ok(token.clone())))
}

/// The grant the suite's context calls for, by what it holds: an IdP ID
/// token (enterprise-managed), a workload JWT (`valid_jwt`), a private
/// key (`private_key_jwt`), or a secret for a scenario of the client
/// credentials extension (the context alone cannot tell that secret from
/// a pre-registered one for the authorization code flow).
pub(crate) fn from_context(scenario: &str, c: &Value) -> Result<Option<Grant>, String> {
    let s = |k: &str| c.get(k).and_then(Value::as_str);
    let client_id = s("client_id").unwrap_or_default();
    if let (Some(id_token), Some(endpoint)) = (s("idp_id_token"), s("idp_token_endpoint")) {
        let credential = match s("client_secret") {
            Some(secret) => Credential::Secret {
                secret: secret.to_owned(),
                method: SecretMethod::Auto,
            },
            None => Credential::None,
        };
        return Ok(Some(Grant::Enterprise(Enterprise {
            idp_token_endpoint: endpoint.to_owned(),
            idp_issuer: s("idp_issuer").map(str::to_owned),
            idp_client: ClientAuth::new(s("idp_client_id").unwrap_or(client_id), Credential::None),
            id_token: fixed(id_token),
            client: ClientAuth::new(client_id, credential),
        })));
    }
    if let Some(jwt) = s("valid_jwt") {
        return Ok(Some(Grant::WorkloadIdentity {
            client: ClientAuth::new(client_id, Credential::None),
            token: fixed(jwt),
        }));
    }
    if let Some(pem) = s("private_key_pem") {
        let key = SigningKey::from_pem(pem, s("signing_algorithm")).map_err(|e| e.0)?;
        return Ok(Some(Grant::ClientCredentials(ClientAuth::new(
            client_id,
            Credential::PrivateKey(key),
        ))));
    }
    if let Some(secret) = s("client_secret")
        && scenario.starts_with("auth/client-credentials")
    {
        return Ok(Some(Grant::ClientCredentials(ClientAuth::new(
            client_id,
            Credential::Secret {
                secret: secret.to_owned(),
                method: SecretMethod::Auto,
            },
        ))));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    // A throwaway P-256 key generated for this test.
    const P256: &str = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgkj2D/uU0dSES8onz\noXcAhS/q1TXBA4QmJnWGmnyrPcKhRANCAATPQHi0mLn+fazB8L6T+FrS8qhQHdt/\nG9aqfTHalumUoQrxCZ/T+fCkqdLobHy1jokFEpEuj3AJFxIiJUmbv2Nh\n-----END PRIVATE KEY-----\n";

    fn grant(scenario: &str, context: serde_json::Value) -> String {
        match from_context(scenario, &context) {
            Ok(Some(g)) => format!("{g:?}"),
            Ok(None) => "code".into(),
            Err(e) => format!("error {e}"),
        }
    }

    #[test]
    fn the_context_picks_the_grant() {
        let secret = json!({"client_id": "c", "client_secret": "s"});
        assert_eq!(grant("auth/pre-registration", secret.clone()), "code");
        assert!(grant("auth/client-credentials-basic", secret).starts_with("ClientCredentials"));
        let jwt = grant(
            "x",
            json!({"client_id": "c", "private_key_pem": P256, "signing_algorithm": "ES256"}),
        );
        assert!(
            jwt.contains("PrivateKey") && jwt.contains("ES256") && !jwt.contains("PRIVATE"),
            "{jwt}"
        );
        let bad = grant(
            "x",
            json!({"client_id": "c", "private_key_pem": P256, "signing_algorithm": "none"}),
        );
        assert!(bad.starts_with("error"), "{bad}");
        let wif = grant("x", json!({"client_id": "w", "valid_jwt": "a.b.c"}));
        assert!(
            wif.starts_with("WorkloadIdentity") && !wif.contains("a.b.c"),
            "{wif}"
        );
        let ema = grant(
            "x",
            json!({"client_id": "c", "client_secret": "s", "idp_id_token": "i.d.t",
            "idp_token_endpoint": "http://idp/token", "idp_client_id": "ic", "idp_issuer": "http://idp"}),
        );
        assert!(
            ema.starts_with("Enterprise") && ema.contains("\"ic\"") && !ema.contains("i.d.t"),
            "{ema}"
        );
    }
}
