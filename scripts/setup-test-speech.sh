#!/usr/bin/env bash
# Real non-English speech for the Whisper language tests (docs/whisper.md, "Other languages"):
# Asterisk's core prompts in Mexican Spanish and Canadian French, whole sentences recorded by
# voice talent, with their transcripts (Digium, CC BY-SA 3.0), as Debian packages them in
# 16 kHz G.722. Test material only: the service and the quickstart never need it, so setup.sh
# does not run this; scripts/test.sh does, and the tests that use it (test/support/speech.ts)
# run it when the folder is missing. Nothing is installed: each .deb is fetched with
# `apt-get download`, checked against its pinned sha256 and unpacked into DEST (the audio is
# not committed to the repository).
#
#   scripts/setup-test-speech.sh [DEST]    (default: $PARLEY_TEST_SPEECH_DIR or data/test-speech)
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-${PARLEY_TEST_SPEECH_DIR:-data/test-speech}}"

# package, version, sha256 of the .deb, its folder under /usr/share/asterisk/sounds, our folder
PACKAGES=(
  "asterisk-core-sounds-es-g722 1.6.1-1 e4e3b4281057d3b81b779298fd6be705f57411513955c518eed1bcaabbd615b8 es_MX_f_Allison es"
  "asterisk-core-sounds-fr-g722 1.6.1-1 7add61d5e42279ecff1bbdf842a5a946ac3644fac9a0fe44384731aa7270c8e0 fr_CA_f_June fr"
)
want="$(printf '%s\n' "${PACKAGES[@]}" | sha256sum | cut -d' ' -f1)"
mkdir -p "$dest"
# Two test files may ask for it at once: one fetches, the other waits and finds it done.
exec 9>"$dest/.lock"
flock 9
if [ -f "$dest/.parley-pins" ] && [ "$(cat "$dest/.parley-pins")" = "$want" ]; then
  exit 0
fi

started=$(date +%s)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for entry in "${PACKAGES[@]}"; do
  read -r name version sha folder ours <<<"$entry"
  echo "setup-test-speech: $name $version (Debian, ~12 MB)"
  if ! (cd "$tmp" && apt-get download -q "$name=$version" >/dev/null 2>&1); then
    # A fresh machine may not have the package lists yet.
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    (cd "$tmp" && apt-get download -q "$name=$version" >/dev/null)
  fi
  deb="$tmp/${name}_${version}_all.deb"
  got="$(sha256sum "$deb" | cut -d' ' -f1)"
  if [ "$got" != "$sha" ]; then
    echo "setup-test-speech: $name: sha256 $got, expected $sha" >&2
    exit 1
  fi
  dpkg-deb -x "$deb" "$tmp/x"
  rm -rf "$dest/$ours.new"
  cp -r "$tmp/x/usr/share/asterisk/sounds/$folder" "$dest/$ours.new"
  cp "$tmp/x/usr/share/doc/$name/copyright" "$dest/$ours.new/COPYRIGHT"
  rm -rf "$dest/$ours"
  mv "$dest/$ours.new" "$dest/$ours"
done
echo "$want" >"$dest/.parley-pins"
echo "setup-test-speech: done in $(($(date +%s) - started)) s ($dest)"
