# bash completion for conf. Generated from conf's command tree: do not edit;
# regenerate with 'conf completions bash'.
_conf() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local command="conf" i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        case "$command $word" in
            "conf host"|"conf join"|"conf check"|"conf rendezvous"|"conf devices"|"conf completions"|"conf help") command="$command $word" ;;
        esac
    done
    case "$command" in
    "conf")
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "host join check rendezvous devices completions help" -- "$cur"))
        fi
        ;;
    "conf host")
        case "$prev" in
        --name|-n) COMPREPLY=(); return ;;
        --resolution|-r) COMPREPLY=($(compgen -W "240p 360p 480p 720p" -- "$cur")); return ;;
        --server|-s) COMPREPLY=(); return ;;
        --listen|-l) COMPREPLY=(); return ;;
        --certificate) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --acme-directory) COMPREPLY=(); return ;;
        --acme-ca) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --domain) COMPREPLY=(); return ;;
        --ca) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --fingerprint) COMPREPLY=(); return ;;
        --room-key) COMPREPLY=(); return ;;
        --as|-a) COMPREPLY=(); return ;;
        --duration|-d) COMPREPLY=(); return ;;
        --say) COMPREPLY=(); return ;;
        --audio-source) COMPREPLY=($(compgen -W "$(conf devices --names audio-sources 2>/dev/null)" -- "$cur")); return ;;
        --audio-sink) COMPREPLY=($(compgen -W "$(conf devices --names audio-sinks 2>/dev/null)" -- "$cur")); return ;;
        --mic) COMPREPLY=($(compgen -W "$(conf devices --names microphones 2>/dev/null)" -- "$cur")); return ;;
        --speaker) COMPREPLY=($(compgen -W "$(conf devices --names speakers 2>/dev/null)" -- "$cur")); return ;;
        --play) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --record) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --audio-bitrate) COMPREPLY=(); return ;;
        --ui) COMPREPLY=($(compgen -W "auto screen lines" -- "$cur")); return ;;
        --video-source) COMPREPLY=($(compgen -W "$(conf devices --names video-sources 2>/dev/null)" -- "$cur")); return ;;
        --video-bitrate) COMPREPLY=(); return ;;
        --video-view) COMPREPLY=($(compgen -W "auto window terminal none" -- "$cur")); return ;;
        --stun) COMPREPLY=(); return ;;
        --turn) COMPREPLY=(); return ;;
        --port-mapping) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        --connect-timeout) COMPREPLY=(); return ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--name --resolution --server --listen --no-tls --certificate --acme-directory --acme-ca --domain --ca --fingerprint --room-key --as --duration --say --audio-source --audio-sink --mic --speaker --muted --play --record --audio-bitrate --stats --ui --video-source --video-bitrate --video-view --stun --turn --relay-only --port-mapping --connect-timeout --no-audio --no-video --no-sounds --json --help" -- "$cur"))
        fi
        ;;
    "conf join")
        case "$prev" in
        --server|-s) COMPREPLY=(); return ;;
        --ca) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --fingerprint) COMPREPLY=(); return ;;
        --as|-a) COMPREPLY=(); return ;;
        --duration|-d) COMPREPLY=(); return ;;
        --say) COMPREPLY=(); return ;;
        --audio-source) COMPREPLY=($(compgen -W "$(conf devices --names audio-sources 2>/dev/null)" -- "$cur")); return ;;
        --audio-sink) COMPREPLY=($(compgen -W "$(conf devices --names audio-sinks 2>/dev/null)" -- "$cur")); return ;;
        --mic) COMPREPLY=($(compgen -W "$(conf devices --names microphones 2>/dev/null)" -- "$cur")); return ;;
        --speaker) COMPREPLY=($(compgen -W "$(conf devices --names speakers 2>/dev/null)" -- "$cur")); return ;;
        --play) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --record) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --audio-bitrate) COMPREPLY=(); return ;;
        --ui) COMPREPLY=($(compgen -W "auto screen lines" -- "$cur")); return ;;
        --video-source) COMPREPLY=($(compgen -W "$(conf devices --names video-sources 2>/dev/null)" -- "$cur")); return ;;
        --video-bitrate) COMPREPLY=(); return ;;
        --video-view) COMPREPLY=($(compgen -W "auto window terminal none" -- "$cur")); return ;;
        --stun) COMPREPLY=(); return ;;
        --turn) COMPREPLY=(); return ;;
        --port-mapping) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        --connect-timeout) COMPREPLY=(); return ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--server --ca --fingerprint --as --duration --say --audio-source --audio-sink --mic --speaker --muted --play --record --audio-bitrate --stats --ui --video-source --video-bitrate --video-view --stun --turn --relay-only --port-mapping --connect-timeout --no-audio --no-video --no-sounds --json --help" -- "$cur"))
        fi
        ;;
    "conf check")
        case "$prev" in
        --server|-s) COMPREPLY=(); return ;;
        --stun) COMPREPLY=(); return ;;
        --turn) COMPREPLY=(); return ;;
        --listen|-l) COMPREPLY=(); return ;;
        --port-mapping) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--server --stun --turn --listen --port-mapping --json --help" -- "$cur"))
        fi
        ;;
    "conf rendezvous")
        case "$prev" in
        --listen|-l) COMPREPLY=(); return ;;
        --tls-cert) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --tls-key) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --certificate) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --acme-directory) COMPREPLY=(); return ;;
        --acme-ca) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --domain) COMPREPLY=(); return ;;
        --stun) COMPREPLY=(); return ;;
        --turn) COMPREPLY=(); return ;;
        --room-idle) COMPREPLY=(); return ;;
        --rooms-per-minute) COMPREPLY=(); return ;;
        --max-rooms) COMPREPLY=(); return ;;
        --knock-timeout) COMPREPLY=(); return ;;
        --resume-grace) COMPREPLY=(); return ;;
        --state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --max-connections-per-client) COMPREPLY=(); return ;;
        --instance) COMPREPLY=(); return ;;
        --workers) COMPREPLY=(); return ;;
        --processes) COMPREPLY=(); return ;;
        --room-key-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --metrics-from) COMPREPLY=(); return ;;
        --trusted-proxy) COMPREPLY=(); return ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--listen --tls-cert --tls-key --certificate --acme-directory --acme-ca --domain --no-tls --stun --turn --room-idle --rooms-per-minute --max-rooms --knock-timeout --resume-grace --state-dir --max-connections-per-client --instance --workers --processes --room-key-file --metrics-from --trusted-proxy --quiet --help" -- "$cur"))
        fi
        ;;
    "conf devices")
        case "$prev" in
        --names) COMPREPLY=($(compgen -W "microphones speakers audio-sources audio-sinks video-sources" -- "$cur")); return ;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--json --names --help" -- "$cur"))
        fi
        ;;
    "conf completions")
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
        fi
        ;;
    "conf help")
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "host join check rendezvous devices completions help" -- "$cur"))
        fi
        ;;
    esac
}
complete -F _conf conf
