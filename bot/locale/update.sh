#!/usr/bin/env sh
# Extract the messages of the code and merge them into each language's catalogue
# (bot/locale/README.md). Only the .po files are kept: the bot compiles each in memory when it
# first needs its language; the last step only reports how complete each catalogue is. Run from the repository's root with the dev extra.
set -eu
pybabel extract -F babel.cfg -k N_ -k Nn_:1,2 -k locale_str --no-location --sort-output \
    --omit-header --project=kachuful -o bot/locale/kachuful.pot .
pybabel update -i bot/locale/kachuful.pot -d bot/locale -D kachuful --no-fuzzy-matching
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for po in bot/locale/*/LC_MESSAGES/kachuful.po; do
    pybabel compile -i "$po" -o "$out/kachuful.mo" --statistics
done
