#!/bin/bash
# Checks that src/ keeps its layers (README, "Where things are"): each
# source file is in the folder of its layer, and includes only headers of
# its own folder (by bare name) and of the folders below it (by
# FOLDER/NAME.h):
#
#   cli  >  capture, formats  >  symbols  >  profile  >  util
#
# capture and formats stand side by side: neither includes the other.
# Run by `make test` and `make lint`. Prints each violation as
# FILE:LINE: what, and exits 1 when there is one.
set -u
cd "$(dirname "$0")/.." || exit 2

# A file may include its own folder, or one of a lower rank.
declare -A rank=([util]=0 [profile]=1 [symbols]=2 [formats]=3 [capture]=3 [cli]=4)
bad=0 nfiles=0 nincs=0

complain() {
	echo "$1: $2" >&2
	bad=$((bad + 1))
}

# The file an include names, as the compiler finds it with -Isrc: beside
# the includer first, then under src/. A bare name that only another
# folder holds is that folder's (the compiler would not find it). Prints
# nothing for a header outside src/ (bpf/, build/, the system's).
resolve() {
	local dir=$1 inc=$2 hits
	if [ -e "$dir/$inc" ]; then
		realpath -m --relative-to=. "$dir/$inc"
	elif [ -e "src/$inc" ]; then
		realpath -m --relative-to=. "src/$inc"
	elif [[ $inc != */* ]]; then
		hits=(src/*/"$inc")
		[ -e "${hits[0]}" ] && echo "${hits[0]}"
	fi
}

check_file() {
	local f=$1 folder=$2 num inc path to
	while IFS=: read -r num inc; do
		nincs=$((nincs + 1))
		path=$(resolve "$(dirname "$f")" "$inc")
		[[ $path == src/*/* ]] || continue
		to=${path#src/}
		to=${to%%/*}
		[ "$to" = "$folder" ] && continue
		if [ -z "${rank[$to]:-}" ]; then
			continue # reported as a folder of no layer
		elif [[ $inc != */* ]]; then
			complain "$f:$num" "'$inc' is in src/$to/: name it with its folder, '$to/$inc'"
		fi
		if ((rank[$to] >= rank[$folder])); then
			complain "$f:$num" "$folder/ may not include $path: a folder includes only its own
	and those below it (cli > capture, formats > symbols > profile > util)"
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
}

for d in src/*; do
	name=${d#src/}
	if [ ! -d "$d" ]; then
		complain "$d" "a source file goes in the folder of its layer, not in src/ itself"
	elif [ -z "${rank[$name]:-}" ]; then
		complain "$d" "not a layer's folder: add it to the ranks in tools/check_layers.sh"
	fi
done
while IFS= read -r f; do
	nfiles=$((nfiles + 1))
	folder=${f#src/}
	folder=${folder%%/*}
	[ -n "${rank[$folder]:-}" ] && check_file "$f" "$folder"
done < <(find src -mindepth 2 -name '*.[ch]' | sort)

if [ "$bad" != 0 ]; then
	echo "check_layers: $bad includes or files out of their layer (see above)" >&2
	exit 1
fi
echo "check_layers: $nfiles files, $nincs includes, none out of its layer"
