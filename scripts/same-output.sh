#!/usr/bin/env bash
# Same output: scripts/same-output.sh OLD_FOLIO NEW_FOLIO
#
# Builds the sample project (data/, templates/, folio.toml) with two folio binaries under
# every envelope, both URL styles, three base URLs (none, an origin, an origin with a
# mount) and every host target (Cloudflare Pages and Workers-with-R2 on their own: they
# share output files with Netlify), and compares output/ and hosting/ byte for byte, the
# manifests aside (they fingerprint the binary and hold times). For refactors that must
# not change a byte: exit 1 on the first difference, with the files that differ.
# SAME_OUTPUT_EXCEPT="folio.lua _worker.js" leaves files of those names out (a change
# meant to touch them, checked by the request table instead). SAME_OUTPUT_HOSTING=report
# compares output/ alone and, rather than stop, lists the hosting/ files that differ
# (a change meant to touch every host config, checked by the request table instead).
set -euo pipefail
OLD=$(realpath "${1:?usage: scripts/same-output.sh OLD_FOLIO NEW_FOLIO}")
NEW=$(realpath "${2:?usage: scripts/same-output.sh OLD_FOLIO NEW_FOLIO}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /dev/shm/folio-same-XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$W"' EXIT
ALL='"nginx", "lighttpd", "apache", "caddy", "netlify", "vercel", "cloudfront"'
R2=$'"cloudflare"\nserve_from_r2'
EXCEPT=(-x .folio-manifest.json)
for name in ${SAME_OUTPUT_EXCEPT:-}; do EXCEPT+=(-x "$name"); done
runs=0
hosting_runs=0
for targets in "$ALL" '"cloudflare"' "$R2"; do
  for envelope in standard laravel laravel-resource template:example; do
    for style in query path; do
      for base in "" "https://example.org" "https://example.org/travel"; do
        for bin in old new; do
          d=$W/$bin
          rm -rf "$d" && mkdir -p "$d"
          cp -r "$ROOT/data" "$ROOT/templates" "$d/"
          list=${targets%%$'\n'*}
          {
            sed -e "s|^base_url = \"\"|base_url = \"$base\"|" \
              -e "s|^targets = .*|targets = [$list]\nroot = \"/srv/site/output\"|" \
              -e "s|^default_page_size = 10|default_page_size = 10\nenvelope = \"$envelope\"\nurl_style = \"$style\"|" \
              "$ROOT/folio.toml"
            if [ "$targets" = "$R2" ]; then
              printf '\n[hosting.cloudflare]\nserve_from = "r2"\n\n[deploy]\nurl = "s3://travel/api-v1"\nendpoint = "https://acc.r2.cloudflarestorage.com"\n'
            fi
          } > "$d/folio.toml"
          bin_path=$OLD
          [ "$bin" = new ] && bin_path=$NEW
          (cd "$d" && "$bin_path" build > /dev/null)
          mkdir -p "$d/hosting"
        done
        where="targets [${targets//$'\n'/ }], envelope $envelope, url_style $style, base_url '$base'"
        if ! diff -r -q "${EXCEPT[@]}" "$W/old/output" "$W/new/output"; then
          echo "different: $where"
          exit 1
        fi
        if [ "${SAME_OUTPUT_HOSTING:-}" = report ]; then
          hosting=$(diff -r -q "${EXCEPT[@]}" "$W/old/hosting" "$W/new/hosting" | grep -oE '/new/hosting/[^ :]+' | sed 's|.*/new/||' | sort -u | tr '\n' ' ' || true)
          [ -n "$hosting" ] && { echo "hosting/ differs ($where): $hosting"; hosting_runs=$((hosting_runs + 1)); }
        elif ! diff -r -q "${EXCEPT[@]}" "$W/old/hosting" "$W/new/hosting"; then
          echo "different: $where"
          exit 1
        fi
        runs=$((runs + 1))
      done
    done
  done
done
if [ "${SAME_OUTPUT_HOSTING:-}" = report ]; then
  echo "same output/ in all $runs projects; hosting/ differs in $hosting_runs of them"
else
  echo "same output in all $runs projects"
fi
