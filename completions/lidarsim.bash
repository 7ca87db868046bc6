# bash completion for lidarsim: subcommands, their options, option values and files by extension.
#   source completions/lidarsim.bash            (this shell)
#   installed as share/bash-completion/completions/lidarsim (loaded on demand by bash-completion)
# Self-contained: plain bash (compgen), no bash-completion helpers needed.

_lidarsim_commands="scan presets bench calibrate validate fit pattern dataset render view compare twin help"
_lidarsim_fields="x y z range intensity reflectivity ring azimuth elevation time label instance incidence nx ny nz x_clean y_clean z_clean return_index num_returns epw power"

# The options of a subcommand ("bench blooming" and the like: the bench's own).
_lidarsim_options()
{
    local common="--help --version"
    case "$1" in
    scan) echo "-o --output --format --frames --seed --frame-index --scan-time --noise --threads --engine --frame
                --keep-misses --fields --bev --bev-size --bev-extent --range-image --range-image-ppd
                --import-timeout --import-memory --stats --quiet --ouster-profile $common" ;;
    presets) echo "--beams $common" ;;
    bench) echo "--quick --beams --triangles --fields --engine --moving --noise --threads --repeat --json --quiet $common" ;;
    "bench blooming") echo "--threads --repeat $common" ;;
    "bench pulses") echo "--threads --repeat --rings --json $common" ;;
    "bench fit") echo "--scenes --baselines --repeat $common" ;;
    "bench dataset") echo "--config --frames --repeat $common" ;;
    calibrate) echo "-o --output --bin-width --sensor --direction --window --seed --view --json --quiet --scan --name
                     --width --distance --brdf --roughness --ior $common" ;;
    validate) echo "-o --output --bin-width --holdout --seed --threads --quiet $common" ;;
    fit) echo "-o --output --max-iterations --quiet $common" ;;
    "pattern from-scan") echo "-o --output --wall-distance --quiet $common" ;;
    dataset) echo "-o --output --frames --seed --shard --threads --points-format --progress --quiet $common" ;;
    render) echo "-o --output --view --color --size --extent --metadata --frame --partial $common" ;;
    compare) echo "-o --output --match --columns --rings --metadata --real-metadata --sim-metadata --frame --real-frame
                   --sim-frame --partial $common" ;;
    twin) echo "-o --output --metadata --sensor --poses --frames --pose-time --levels --shadow-angle --no-drop --naive
                --partial --quiet $common" ;;
    view) echo "--screenshot --size --camera --sensor-position --sensor-yaw --beams --no-beams --color
                --scene-color --threads --quiet $common" ;;
    esac
}

# Files whose names end in one of the extensions given (case-insensitive), and folders.
_lidarsim_files()
{
    local cur=$1 f ext
    shift
    compopt -o filenames 2>/dev/null
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            COMPREPLY+=("$f")
            continue
        fi
        for ext in "$@"; do
            if [[ ${f,,} == *."$ext" ]]; then
                COMPREPLY+=("$f")
                break
            fi
        done
    done < <(compgen -f -- "$cur")
}

_lidarsim_dirs()
{
    compopt -o filenames 2>/dev/null
    local d
    while IFS= read -r d; do COMPREPLY+=("$d"); done < <(compgen -d -- "$1")
}

_lidarsim_words()
{
    local w
    while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -W "$1" -- "$2")
}

_lidarsim()
{
    COMPREPLY=()
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    local points="pcd ply csv bin las"
    if ((COMP_CWORD == 1)); then
        _lidarsim_words "$_lidarsim_commands --help --version" "$cur"
        return 0
    fi
    local cmd=${COMP_WORDS[1]}
    case $cmd in
    help)
        ((COMP_CWORD == 2)) && _lidarsim_words "${_lidarsim_commands% help}" "$cur"
        return 0 ;;
    bench)
        local sub=${COMP_WORDS[2]}
        if ((COMP_CWORD == 2)); then
            [[ $cur == -* ]] || _lidarsim_words "blooming pulses fit dataset" "$cur"
        fi
        case $sub in blooming | pulses | fit | dataset) cmd="bench $sub" ;; esac ;;
    pattern)
        if ((COMP_CWORD == 2)); then
            _lidarsim_words "from-scan --help --version" "$cur"
            return 0
        fi
        cmd="pattern from-scan" ;;
    esac

    # the value of the option before the cursor
    case "$cmd:$prev" in
    scan:--format) _lidarsim_words "pcd pcd-ascii ply kitti csv las mcap pcap" "$cur"; return 0 ;;
    scan:--ouster-profile)
        _lidarsim_words "RNG19_RFL8_SIG16_NIR16 RNG19_RFL8_SIG16_NIR16_DUAL RNG15_RFL8_NIR8 LEGACY" "$cur"; return 0 ;;
    scan:--engine | bench:--engine) _lidarsim_words "raycast raster" "$cur"; return 0 ;;
    scan:--noise | bench:--noise) _lidarsim_words "on off" "$cur"; return 0 ;;
    scan:--frame) _lidarsim_words "sensor world" "$cur"; return 0 ;;
    scan:--fields | bench:--fields)
        local done="" last=$cur
        if [[ $cur == *,* ]]; then done=${cur%,*},; last=${cur##*,}; fi
        local f
        for f in $_lidarsim_fields $([[ $cmd == bench ]] && echo all); do
            [[ $f == "$last"* ]] && COMPREPLY+=("$done$f")
        done
        compopt -o nospace 2>/dev/null
        return 0 ;;
    scan:-o | scan:--output) _lidarsim_files "$cur" pcd ply bin csv las mcap pcap; return 0 ;;
    scan:--bev | scan:--range-image | view:--screenshot | render:-o | render:--output)
        _lidarsim_files "$cur" png; return 0 ;;
    render:--view) _lidarsim_words "bev range perspective" "$cur"; return 0 ;;
    render:--metadata) _lidarsim_files "$cur" json yaml yml xml; return 0 ;;
    compare:--metadata | compare:--real-metadata | compare:--sim-metadata)
        _lidarsim_files "$cur" json yaml yml xml; return 0 ;;
    compare:--match) _lidarsim_words "auto beam direction" "$cur"; return 0 ;;
    compare:-o | compare:--output | twin:-o | twin:--output) _lidarsim_dirs "$cur"; return 0 ;;
    twin:--metadata) _lidarsim_files "$cur" json yaml yml xml; return 0 ;;
    twin:--poses) _lidarsim_files "$cur" txt; return 0 ;;
    twin:--sensor)
        local names
        names=$("${COMP_WORDS[0]}" presets 2>/dev/null | awk 'NR > 1 { print $1 }')
        _lidarsim_words "$names" "$cur"; return 0 ;;
    render:--color) _lidarsim_words "intensity label range epw reflectivity" "$cur"; return 0 ;;
    view:--color) _lidarsim_words "intensity label" "$cur"; return 0 ;;
    view:--scene-color) _lidarsim_words "label material" "$cur"; return 0 ;;
    dataset:--progress) _lidarsim_words "auto lines off" "$cur"; return 0 ;;
    dataset:--points-format) _lidarsim_words "pcd ply las csv" "$cur"; return 0 ;;
    calibrate:--brdf) _lidarsim_words "oren-nayar cook-torrance lambertian" "$cur"; return 0 ;;
    calibrate:-o | calibrate:--output | fit:-o | fit:--output) _lidarsim_files "$cur" yaml yml; return 0 ;;
    calibrate:--scan) _lidarsim_files "$cur" txt csv log; return 0 ;;
    calibrate:--view | validate:-o | validate:--output | dataset:-o | dataset:--output | "bench fit:--scenes" | \
        "bench fit:--baselines")
        _lidarsim_dirs "$cur"; return 0 ;;
    "pattern from-scan:-o" | "pattern from-scan:--output") _lidarsim_files "$cur" csv; return 0 ;;
    "bench dataset:--config") _lidarsim_files "$cur" yaml yml; return 0 ;;
    esac
    # any other option that takes a value (a number, a name): nothing to offer
    case $prev in
    --seed | --frames | --frame-index | --scan-time | --threads | --bev-size | --bev-extent | --range-image-ppd | \
        --import-timeout | --import-memory | --beams | --triangles | --repeat | --rings | --bin-width | --sensor | \
        --direction | --window | --name | --width | --distance | --roughness | --ior | --max-iterations | \
        --wall-distance | --shard | --size | --extent | --camera | --sensor-position | --sensor-yaw | --columns | \
        --real-frame | --sim-frame | --pose-time | --levels | --shadow-angle)
        [[ $cmd == presets && $prev == --beams ]] || return 0 ;;
    esac

    if [[ $cur == -* ]]; then
        _lidarsim_words "$(_lidarsim_options "$cmd")" "$cur"
        return 0
    fi
    # positional arguments
    case $cmd in
    scan | fit | dataset | view) _lidarsim_files "$cur" yaml yml ;;
    calibrate | validate) _lidarsim_files "$cur" yaml yml config ;;
    render | compare) _lidarsim_files "$cur" $points pcap pcapng ;;
    twin) _lidarsim_files "$cur" pcap pcapng ;;
    "pattern from-scan") _lidarsim_files "$cur" $points ;;
    presets)
        local names
        names=$("${COMP_WORDS[0]}" presets 2>/dev/null | awk 'NR > 1 { print $1 }')
        _lidarsim_words "$names" "$cur"
        _lidarsim_files "$cur" json yaml yml xml ;;
    esac
    return 0
}

complete -F _lidarsim lidarsim
