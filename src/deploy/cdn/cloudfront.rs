//! Amazon CloudFront: `CreateInvalidation` (`POST /2020-05-31/distribution/ID/invalidation`),
//! signed with AWS Signature Version 4 by `object_store`'s signer, with the credentials
//! the S3 client finds (the `AWS_*` variables, web identity, container and instance
//! roles). The endpoint is CloudFront's, or `AWS_ENDPOINT_URL_CLOUDFRONT` as the AWS SDKs
//! read it (not `AWS_ENDPOINT_URL`, which folio users set for an S3-compatible store).
//!
//! Limits: 3,000 exact paths and 15 wildcard paths in progress per distribution. folio
//! sends at most 3,000 paths an invalidation (`purge.rs` keeps wildcards to 15), and one
//! that CloudFront answers `TooManyInvalidationsInProgress` (or `Throttling`) waits until
//! earlier invalidations finish. Each invalidation carries a caller reference of this
//! deploy's, so a retry after a lost answer is the same invalidation, not a second one.
//! `NoSuchDistribution` is a distribution that does not exist (a mistyped id).

use std::sync::Arc;

use object_store::CredentialProvider;
use object_store::aws::{AwsAuthorizer, AwsCredential};
use serde::{Deserialize, Serialize};

use super::answer::{Accepted, Answer, Declined};
use super::client::Client;
use super::http::{Endpoint, send, their_words};
use super::wait::{Budget, patiently, retry_after};
use crate::config::Cdn;
use crate::deploy::purge::{Batch, Dialect};

const API: &str = "2020-05-31";
const DEFAULT_ENDPOINT: &str = "https://cloudfront.amazonaws.com";
const ENDPOINT_VAR: &str = "AWS_ENDPOINT_URL_CLOUDFRONT";

type Credentials = Arc<dyn CredentialProvider<Credential = AwsCredential>>;

pub struct CloudFront {
    cdn: Cdn,
    /// Where the requests go, said when it cannot be reached.
    endpoint: Endpoint,
    url: String,
    client: reqwest::Client,
    credentials: Credentials,
    nonce: String,
}

impl CloudFront {
    pub fn new(
        cdn: Cdn,
        id: &str,
        client: reqwest::Client,
        nonce: &str,
    ) -> Result<CloudFront, String> {
        let endpoint = Endpoint::from_env(ENDPOINT_VAR, DEFAULT_ENDPOINT)?;
        if let Some(garbled) =
            crate::deploy::store::garbled_secret(&crate::deploy::store::AWS_SECRETS)
        {
            return Err(garbled);
        }
        let s3 = crate::deploy::store::s3_from_env()
            .with_bucket_name("folio-cloudfront")
            .with_region("us-east-1")
            .build()
            .map_err(|e| format!("reading AWS credentials: {}", crate::deploy::store_says(&e)))?;
        Ok(CloudFront {
            url: format!(
                "{}/{API}/distribution/{id}/invalidation",
                endpoint.url.trim_end_matches('/')
            ),
            endpoint,
            cdn,
            client,
            credentials: s3.credentials().clone(),
            nonce: nonce.to_string(),
        })
    }

    /// One invalidation of `paths`, signed anew for each try.
    async fn invalidate(&self, paths: &[String], reference: &str) -> Answer<String> {
        let credential = match self.credentials.get_credential().await {
            Ok(c) => c,
            Err(e) => {
                let hint =
                    crate::deploy::store::missing_credentials(crate::deploy::store::Scheme::S3)
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default();
                return Answer::Refused(format!(
                    "no AWS credentials: {}{hint}",
                    crate::deploy::store_says(&e)
                ));
            }
        };
        let body = batch(paths, reference);
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri(&self.url)
            .header(http::header::CONTENT_TYPE, "text/xml")
            .body(object_store::client::HttpRequestBody::from(body.clone()))
            .expect("a request from checked parts");
        if let Err(e) = AwsAuthorizer::new(&credential, "cloudfront", "us-east-1")
            .try_authorize(&mut request, None)
        {
            return Answer::Refused(format!("signing the request: {e}"));
        }
        let mut builder = self.client.post(&self.url).body(body);
        for (name, value) in request.headers() {
            builder = builder.header(name, value);
        }
        let (status, headers, body) = match send(builder).await {
            Ok(answer) => answer,
            Err(why) => return Answer::Unreachable(self.endpoint.unreachable(&why)),
        };
        let text = String::from_utf8_lossy(&body);
        if status.is_success() {
            return match quick_xml::de::from_str::<Invalidation>(&text) {
                Ok(i) => Answer::Accepted(i.id),
                Err(_) => {
                    Answer::Unreachable(format!("{status}: an answer that is no invalidation"))
                }
            };
        }
        let (code, message) = match quick_xml::de::from_str::<ErrorResponse>(&text) {
            Ok(e) => {
                // An endpoint that echoes the request's headers must not print the keys.
                let secrets = [
                    credential.key_id.as_str(),
                    credential.secret_key.as_str(),
                    credential.token.as_deref().unwrap_or(""),
                ];
                (their_words(&e.error.code, &secrets), their_words(&e.error.message, &secrets))
            }
            Err(_) => (String::new(), String::new()),
        };
        let why = [status.to_string(), code.clone(), message]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(": ");
        if code == "NoSuchDistribution" || status == http::StatusCode::NOT_FOUND {
            return Answer::Missing(why);
        }
        let busy = matches!(code.as_str(), "TooManyInvalidationsInProgress" | "Throttling")
            || status == http::StatusCode::TOO_MANY_REQUESTS
            || status.is_server_error();
        if busy {
            // CloudFront finishes an invalidation in about a minute: without a
            // Retry-After, the doubling waits from 1 s reach that soon enough.
            Answer::Busy { after: retry_after(&headers), why }
        } else {
            Answer::Refused(why)
        }
    }
}

#[async_trait::async_trait]
impl Client for CloudFront {
    fn cdn(&self) -> &Cdn {
        &self.cdn
    }

    fn dialect(&self) -> Dialect {
        Dialect::CloudFront
    }

    async fn send(&self, batch: &Batch, n: usize, budget: &Budget) -> Result<Accepted, Declined> {
        let reference = format!("folio-{}-{n}", self.nonce);
        let (id, waits) = patiently(budget, || self.invalidate(&batch.paths, &reference)).await?;
        Ok(Accepted { id: Some(id), waits })
    }
}

/// `InvalidationBatch` as CloudFront's API takes it.
fn batch(paths: &[String], reference: &str) -> String {
    #[derive(Serialize)]
    #[serde(rename = "InvalidationBatch")]
    struct Batch<'a> {
        #[serde(rename = "@xmlns")]
        xmlns: &'static str,
        #[serde(rename = "Paths")]
        paths: Paths<'a>,
        #[serde(rename = "CallerReference")]
        reference: &'a str,
    }
    #[derive(Serialize)]
    struct Paths<'a> {
        #[serde(rename = "Quantity")]
        quantity: usize,
        #[serde(rename = "Items")]
        items: Items<'a>,
    }
    #[derive(Serialize)]
    struct Items<'a> {
        #[serde(rename = "Path")]
        path: &'a [String],
    }
    let batch = Batch {
        xmlns: "http://cloudfront.amazonaws.com/doc/2020-05-31/",
        paths: Paths { quantity: paths.len(), items: Items { path: paths } },
        reference,
    };
    let xml = quick_xml::se::to_string(&batch).expect("plain strings serialize");
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{xml}")
}

#[derive(Deserialize)]
struct Invalidation {
    #[serde(rename = "Id")]
    id: String,
}

#[derive(Deserialize)]
struct ErrorResponse {
    #[serde(rename = "Error")]
    error: ErrorBody,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "Code", default)]
    code: String,
    #[serde(rename = "Message", default)]
    message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalidation_batch_is_cloudfronts_xml_with_escaped_paths() {
        let paths = vec!["/api/en/attractions?page=2&per_page=20".to_string(), "/api/fr/*".into()];
        let xml = batch(&paths, "folio-abc-0");
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><InvalidationBatch xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Paths><Quantity>2</Quantity><Items><Path>/api/en/attractions?page=2&amp;per_page=20</Path><Path>/api/fr/*</Path></Items></Paths><CallerReference>folio-abc-0</CallerReference></InvalidationBatch>"
        );
    }

    #[test]
    fn an_error_and_an_invalidation_are_read_from_cloudfronts_answers() {
        let e: ErrorResponse = quick_xml::de::from_str("<?xml version=\"1.0\"?><ErrorResponse xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Error><Type>Sender</Type><Code>TooManyInvalidationsInProgress</Code><Message>Processing your request will cause you to exceed the maximum number of in-progress wildcard invalidations.</Message></Error><RequestId>x</RequestId></ErrorResponse>").unwrap();
        assert_eq!(e.error.code, "TooManyInvalidationsInProgress");
        let i: Invalidation = quick_xml::de::from_str("<Invalidation><Id>I2J0I21PCUYOIK</Id><Status>InProgress</Status><CreateTime>2026-11-27T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>1</Quantity><Items><Path>/a</Path></Items></Paths><CallerReference>r</CallerReference></InvalidationBatch></Invalidation>").unwrap();
        assert_eq!(i.id, "I2J0I21PCUYOIK");
    }
}
