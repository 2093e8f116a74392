//! The OAuth grants without a user, as the probe's flags and the
//! conformance suite's context name them (client credentials with a
//! secret or a private key, workload identity, enterprise-managed).

use std::path::PathBuf;
use std::sync::Arc;

use mcp_era_client::auth::{
    ClientAuth, Credential, Enterprise, Grant, SecretMethod, SigningKey, TokenSource,
};
use serde_json::Value;

/// What the `--oauth-*` flags say about the grant.
pub(crate) struct GrantFlags<'a> {
    pub(crate) client_credentials: bool,
    pub(crate) client_id: Option<&'a str>,
    pub(crate) client_secret: Option<String>,
    pub(crate) private_key: Option<&'a PathBuf>,
    pub(crate) signing_alg: Option<&'a str>,
    pub(crate) workload_token: Option<&'a PathBuf>,
    pub(crate) id_token: Option<&'a PathBuf>,
    pub(crate) idp_token_endpoint: Option<&'a str>,
    pub(crate) idp_client_id: Option<&'a str>,
}

/// A key file: a JWK when it holds a JSON object, else PKCS#8 PEM.
fn key_file(path: &PathBuf, alg: Option<&str>) -> Result<SigningKey, String> {
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
pub(crate) fn from_flags(f: &GrantFlags<'_>) -> Result<Option<Grant>, String> {
    let machine = f.client_credentials || f.workload_token.is_some() || f.id_token.is_some();
    if !machine {
        return Ok(None);
    }
    let Some(client_id) = f.client_id else {
        return Err("the machine grants need --oauth-client-id".into());
    };
    let credential = match (&f.private_key, &f.client_secret) {
        (Some(path), _) => Credential::PrivateKey(key_file(path, f.signing_alg)?),
        (None, Some(secret)) => Credential::Secret {
            secret: secret.clone(),
            method: SecretMethod::Auto,
        },
        (None, None) => Credential::None,
    };
    let client = ClientAuth::new(client_id, credential);
    if let Some(path) = f.workload_token {
        return Ok(Some(Grant::WorkloadIdentity {
            client,
            token: TokenSource::File(path.clone()),
        }));
    }
    if let Some(path) = f.id_token {
        let (Some(endpoint), Some(idp_client_id)) = (f.idp_token_endpoint, f.idp_client_id) else {
            return Err(
                "--oauth-id-token needs --oauth-idp-token-endpoint and --oauth-idp-client-id"
                    .into(),
            );
        };
        return Ok(Some(Grant::Enterprise(Enterprise {
            idp_token_endpoint: endpoint.to_owned(),
            idp_issuer: None,
            idp_client: ClientAuth::new(idp_client_id, Credential::None),
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
