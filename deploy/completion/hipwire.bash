# bash completion for hipwire and hip-worker (installed as
# /usr/share/bash-completion/completions/{hipwire,hip-worker}).

_hipwire() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    }
    local cmds="node partition devices status"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
        return
    fi
    case ${words[1]} in
    node)
        if [[ $cword -eq 2 ]]; then
            COMPREPLY=($(compgen -W "check setup labels" -- "$cur"))
            return
        fi
        ;;
    partition)
        if [[ $cword -eq 2 ]]; then
            COMPREPLY=($(compgen -W "show set reset" -- "$cur"))
            return
        fi
        case $prev in
        --compute) COMPREPLY=($(compgen -W "SPX DPX QPX CPX" -- "$cur")); return ;;
        --memory) COMPREPLY=($(compgen -W "NPS1 NPS4" -- "$cur")); return ;;
        esac
        ;;
    esac
    # Every command documents its options in --help: offer its long options.
    if [[ $cur == -* ]]; then
        local sub=(${words[@]:1:2})
        [[ ${words[2]} == -* ]] && sub=(${words[1]})
        COMPREPLY=($(compgen -W "$("${words[0]}" "${sub[@]}" --help 2>&1 |
            grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
    fi
}
complete -F _hipwire hipwire

_hip_worker() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    case $prev in
    --backend) COMPREPLY=($(compgen -W "auto hip cuda cpu" -- "$cur")); return ;;
    --config | --token-file | --tls-cert | --tls-key | --port-file | --hipcc)
        COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --rtc-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>&1 |
        grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
}
complete -F _hip_worker hip-worker
