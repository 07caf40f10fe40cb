#!/usr/bin/env bash
# The steps of the `folio` GitHub Action (action.yml), also runnable by hand or by the
# tests against a local server.
#
#   install.sh plan     picks the release archive for this runner and the folder it goes
#                       in; writes target, archive, version, dir and cacheable to
#                       $GITHUB_OUTPUT (the cache step keys on them)
#   install.sh install  unless the folder already holds folio (a cache hit): downloads the
#                       archive and its .sha256, checks the archive against it (and against
#                       FOLIO_SHA256 when set), unpacks it; then puts the folder on PATH
#
# Reads FOLIO_VERSION ("0.1.0", "v0.1.0" or "latest"), FOLIO_REPOSITORY (owner/name whose
# releases hold folio; default: the action's own repository, from its path), FOLIO_SHA256
# (optional: the archive's SHA-256 as published, pinned by the workflow),
# FOLIO_DOWNLOAD_URL (optional: a folder URL holding the archives directly, for a mirror
# or a test server), and the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE,
# GITHUB_OUTPUT and GITHUB_PATH.
set -euo pipefail

fail() {
  echo "::error title=folio::$*" >&2
  exit 1
}

version=${FOLIO_VERSION:-latest}
version=${version#v}
# A version names a folder and a URL: digits, letters, dots, pluses and hyphens only.
case "$version" in
  latest) ;;
  [0-9]*)
    case "$version" in
      *[!0-9A-Za-z.+-]* | *..*) fail "version \`$FOLIO_VERSION\` is not a release version (like 0.1.0) or latest" ;;
    esac
    ;;
  *) fail "version \`${FOLIO_VERSION:-}\` is not a release version (like 0.1.0) or latest" ;;
esac

# The release target for this runner. Linux: the static musl build where the C library
# is musl (Alpine containers), the gnu build otherwise.
os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
libc=gnu
# musl's ldd exits 1 on --version: its words count, not its status.
if [ "$os" = Linux ] && { ldd --version 2>&1 || true; } | grep -qi musl; then
  libc=musl
fi
case "$os/$arch" in
  Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-$libc ;;
  Linux/ARM64 | Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-$libc ;;
  macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ;;
  macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) fail "no folio release for $os/$arch: the releases cover Linux and macOS on X64 and ARM64, and Windows on X64; on another runner use cargo install folio --locked" ;;
esac
case "$target" in
  *windows*) archive=folio-$target.zip exe=folio.exe ;;
  *) archive=folio-$target.tar.xz exe=folio ;;
esac

tools=${RUNNER_TOOL_CACHE:-${TMPDIR:-/tmp}}
dir=$tools/folio/$version/$target

case "${1:-}" in
plan)
  {
    echo "target=$target"
    echo "archive=$archive"
    echo "version=$version"
    echo "dir=$dir"
    # "latest" names a different release over time: only a pinned version is cached.
    if [ "$version" = latest ]; then echo "cacheable=false"; else echo "cacheable=true"; fi
  } >> "${GITHUB_OUTPUT:-/dev/stdout}"
  ;;
install)
  pin=$(printf '%s' "${FOLIO_SHA256:-}" | tr 'A-F' 'a-f')
  # A cached folder is used when it holds this version, checked as it was installed (and
  # against the pin, when there is one); "latest" is fetched every time.
  cached=false
  if [ "$version" != latest ] && [ -x "$dir/$exe" ] && [ -f "$dir/.folio-archive.sha256" ]; then
    recorded=$(cat "$dir/.folio-archive.sha256")
    said=$("$dir/$exe" --version 2> /dev/null || true)
    case "$said" in
      "folio $version"*) [ -z "$pin" ] || [ "$pin" = "$recorded" ] && cached=true ;;
    esac
  fi
  if [ "$cached" = false ]; then
    if [ -n "${FOLIO_DOWNLOAD_URL:-}" ]; then
      base=${FOLIO_DOWNLOAD_URL%/}
    else
      repository=${FOLIO_REPOSITORY:-}
      if [ -z "$repository" ]; then
        # The action runs from .../_actions/OWNER/NAME/REF: its own repository.
        case "${GITHUB_ACTION_PATH:-}" in
          */_actions/*/*/*)
            name_dir=$(dirname "$GITHUB_ACTION_PATH")
            repository=$(basename "$(dirname "$name_dir")")/$(basename "$name_dir")
            ;;
          *) repository=${GITHUB_REPOSITORY:-} ;;
        esac
      fi
      [ -n "$repository" ] || fail "no repository to download folio from: set the action's repository input"
      if [ "$version" = latest ]; then
        base=https://github.com/$repository/releases/latest/download
      else
        base=https://github.com/$repository/releases/download/v$version
      fi
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    echo "downloading $base/$archive"
    curl -fsSL --retry 3 -o "$work/$archive" "$base/$archive" \
      || fail "downloading $base/$archive failed: is $version a released version?"
    curl -fsSL --retry 3 -o "$work/$archive.sha256" "$base/$archive.sha256" \
      || fail "downloading $base/$archive.sha256 failed"
    if command -v sha256sum > /dev/null; then
      actual=$(sha256sum "$work/$archive" | cut -d' ' -f1)
    else
      actual=$(shasum -a 256 "$work/$archive" | cut -d' ' -f1)
    fi
    published=$(cut -d' ' -f1 < "$work/$archive.sha256" | tr 'A-F' 'a-f')
    [ "$actual" = "$published" ] || fail "$archive has SHA-256 $actual, its release says $published: not installed"
    if [ -n "$pin" ] && [ "$actual" != "$pin" ]; then
      fail "$archive has SHA-256 $actual, the workflow pins $pin: not installed"
    fi
    mkdir -p "$work/unpacked"
    case "$archive" in
      *.zip) (cd "$work/unpacked" && unzip -q "../$archive") ;;
      *) tar -xJf "$work/$archive" -C "$work/unpacked" ;;
    esac
    # dist's archives hold one folder named after the archive.
    found=$(find "$work/unpacked" -type f -name "$exe" | head -n 1)
    [ -n "$found" ] || fail "$archive holds no $exe"
    echo "$actual" > "$(dirname "$found")/.folio-archive.sha256"
    mkdir -p "$(dirname "$dir")"
    # $dir is $tools/folio/VERSION/TARGET, both checked above: nothing else is replaced.
    rm -rf "$dir"
    mv "$(dirname "$found")" "$dir"
  else
    echo "folio $version for $target is in the cache"
  fi
  echo "$dir" >> "${GITHUB_PATH:-/dev/null}"
  "$dir/$exe" --version
  ;;
*)
  fail "usage: install.sh plan|install"
  ;;
esac
