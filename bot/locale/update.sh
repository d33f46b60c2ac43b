#!/usr/bin/env sh
# Extract the messages of the code, merge them into each language's catalogue and compile the
# catalogues (bot/locale/README.md). Run from the repository's root with the dev extra.
set -eu
pybabel extract -F babel.cfg -k N_ -k Nn_:1,2 -k locale_str --no-location --sort-output \
    --omit-header --project=kachuful -o bot/locale/kachuful.pot .
pybabel update -i bot/locale/kachuful.pot -d bot/locale -D kachuful --no-fuzzy-matching
pybabel compile -d bot/locale -D kachuful --statistics
