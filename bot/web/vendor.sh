#!/usr/bin/env sh
# Vendor Discord's Embedded App SDK into the web client (bot/web/static/vendor/): the Activity
# page imports it from the bot's own origin (Discord's Activity proxy blocks any other), and a
# user's machine never needs Node. Run from the repository's root with npm; commit the result.
#
# `npm pack` fetches the pinned version and checks it against the registry's integrity hash;
# the package's ES modules (output/**/*.mjs, self-contained: they import only each other) and
# its licence are copied, and VERSION records what was taken and the tarball's sha512.
set -eu
version="2.5.0"
name="@discord/embedded-app-sdk"
dest="bot/web/static/vendor/embedded-app-sdk"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$name@$version" >/dev/null && tar xzf ./*.tgz)
rm -rf "$dest"
mkdir -p "$dest"
root="$(pwd)"
(cd "$work/package/output" && find . -name '*.mjs' -print0 | xargs -0 cp --parents -t "$root/$dest")
cp "$work/package/LICENSE.md" "$dest/LICENSE.md"
sum="$(sha512sum "$work"/*.tgz | cut -d' ' -f1)"
printf '%s@%s\nsha512 %s\n' "$name" "$version" "$sum" >"$dest/VERSION"
echo "vendored $name@$version into $dest ($(find "$dest" -name '*.mjs' | wc -l) modules)"
