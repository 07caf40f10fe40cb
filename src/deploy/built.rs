//! The build a deploy publishes: the finished one in `output/`, made from this config and
//! for this `base_url`, or why there is none.

use crate::config::Project;
use crate::error::{Failure, Unbuilt};
use crate::output::manifest::{MANIFEST, Manifest};

/// The finished build in `output/`, or why there is none. The caller holds the lock.
pub fn finished(project: &Project) -> Result<Manifest, Failure> {
    let out = &project.output_dir;
    let output = crate::diag::display_path(out).display().to_string();
    if crate::output::half_switched(out) {
        return Err(Failure::Unbuilt(Unbuilt::HalfSwitched { output }));
    }
    let path = out.join(MANIFEST);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Unbuilt(Unbuilt::Missing { output }));
        }
        Err(e) => {
            return Err(anyhow::Error::from(e)
                .context(format!("reading `{}`", path.display()))
                .into());
        }
    };
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| {
        Failure::Unbuilt(Unbuilt::Unreadable {
            manifest: crate::diag::display_path(&path).display().to_string(),
            why: e.to_string(),
        })
    })?;
    // Compared as URLs: the stamp keeps the build's `base_url` typed.
    if manifest.stamp.base_url != project.shape.base {
        return Err(Failure::Unbuilt(Unbuilt::OtherBaseUrl {
            output,
            built: manifest.stamp.base_url.prefix(),
            config: project.config_path.display().to_string(),
            configured: project.shape.base.prefix(),
        }));
    }
    // Only what shapes the output counts: a comment or a `[deploy]` setting needs no build.
    if manifest.stamp.config != project.output_settings_digest {
        return Err(Failure::Unbuilt(Unbuilt::ConfigChanged {
            config: project.config_path.display().to_string(),
            output,
        }));
    }
    Ok(manifest)
}
