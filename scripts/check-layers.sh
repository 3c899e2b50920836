#!/usr/bin/env bash
# check-layers.sh - the map of the code (docs/design.md) as a check: every
# quoted #include of a file under common/, engine/, embed/, services/ and
# launcher/ must name a folder its own folder may use. A header in the
# including file's own folder is named bare; any other names its path from
# the top of the tree. Generated headers (*.pb-c.h, version.h) are allowed
# everywhere. A header named *_parts.h, *_impl.h or *_internal.h is private
# to its folder. Prints each breach and exits 1 if there is one.
#
#   common/base     nothing of ours
#   common/config   base
#   common/bus      base, config
#   common/logs     base, config, bus
#   engine/*        base, config, engine
#   embed           base, config, engine
#   services/NAME   common, engine, its own folder
#   launcher        common, engine, each service's entry header
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

allowed () { # room of the including file -> regex of the folders it may name
    case $1 in
        common/base) echo '^$' ;;
        common/config) echo '^common/base$' ;;
        common/bus) echo '^common/(base|config)$' ;;
        common/logs) echo '^common/(base|config|bus)$' ;;
        engine/*) echo '^(common/(base|config)|engine/[^/]+)$' ;;
        embed) echo '^(common/(base|config)|engine/[^/]+)$' ;;
        services/*) echo "^(common/[^/]+|engine/[^/]+)\$" ;;
        launcher) echo '^(common/[^/]+|engine/[^/]+)$' ;;
        *) echo '' ;;
    esac
}
# the one header of each service the launcher starts it through
entry='^services/(physics/physics|vision/vision|gateway/gateway|viewer/viewer|legacy-grsim/grs_service)\.h$'

bad=0
while IFS= read -r f; do
    dir=${f%/*}
    rules=$(allowed "$dir")
    [ -n "$rules" ] || continue
    while IFS= read -r inc; do
        case $inc in *.pb-c.h | version.h) continue ;; esac
        if [[ $inc != */* ]]; then
            [ -f "$dir/$inc" ] && continue
            echo "$f: \"$inc\" is not in $dir/: name it by its path from the top"; bad=1; continue
        fi
        if [ ! -f "$inc" ]; then
            echo "$f: \"$inc\" does not exist"; bad=1; continue
        fi
        idir=${inc%/*}
        if [ "$idir" = "$dir" ]; then
            echo "$f: \"$inc\" is in its own folder: name it bare"; bad=1; continue
        fi
        case ${inc##*/} in *_parts.h | *_impl.h | *_internal.h)
            echo "$f: \"$inc\" is private to $idir/"; bad=1; continue ;;
        esac
        [[ $idir =~ $rules ]] && continue
        [ "$dir" = launcher ] && [[ $inc =~ $entry ]] && continue
        echo "$f: \"$inc\": $dir/ may not use $idir/ (docs/design.md, map of the code)"; bad=1
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(git ls-files -- 'common/*.[ch]' 'engine/*.[ch]' 'embed/*.[ch]' 'services/*.[ch]' 'launcher/*.[ch]')
[ $bad -eq 0 ] && echo "check-layers: every include keeps to the map"
exit $bad
