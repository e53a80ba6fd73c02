#!/bin/sh
# WordNet 3.0 for the interpreter, from Debian's wordnet-base and wordnet-sense-index packages,
# unpacked without root into a project-local nltk_data folder.  Does nothing when installed.
# Debian does not ship `lexnames` (nltk needs it), so it is generated from the package's own
# lexnames(5) manual page: number, name and the part of speech its prefix names.
set -eu
TARGET="${QLANG_NLTK_DATA:-$(cd "$(dirname "$0")/.." && pwd)/.cache/nltk_data}/corpora/wordnet"
[ -s "$TARGET/data.noun" ] && [ -s "$TARGET/lexnames" ] && exit 0

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
if ! apt-get download -q wordnet-base wordnet-sense-index > fetch.log 2>&1; then
    cat fetch.log >&2
    echo "wordnet.sh: apt-get could not fetch wordnet-base and wordnet-sense-index; put WordNet 3.0" \
         "(its dict files and a lexnames file) into $TARGET by hand" >&2
    exit 1
fi
for deb in ./*.deb; do dpkg-deb -x "$deb" root; done

mkdir -p "$TARGET"
cp root/usr/share/wordnet/* "$TARGET/"
zcat root/usr/share/man/man5/lexnames.5WN.gz | awk -F'\t' '
    /^[0-9][0-9]\t/ { split($2, part, ".");
                      pos = part[1] == "noun" ? 1 : part[1] == "verb" ? 2 : part[1] == "adj" ? 3 : 4;
                      gsub(/ /, "", $2); printf "%s\t%s\t%d\n", $1, $2, pos }' > "$TARGET/lexnames.tmp"
[ "$(wc -l < "$TARGET/lexnames.tmp")" -eq 45 ] || { echo "wordnet.sh: lexnames not 45 lines" >&2; exit 1; }
mv "$TARGET/lexnames.tmp" "$TARGET/lexnames"
echo "WordNet 3.0 installed in $TARGET"
