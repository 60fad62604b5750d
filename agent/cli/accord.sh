#!/bin/sh
# `accord` (dist/accord): the command an editor runs. Everything goes to the
# Node entry beside it (dist/agent.js), except `accord acp` on Linux with the
# daemon already running: then this shell ends as socat relaying stdio to the
# daemon (4 MB resident instead of a 40 MB Node bridge, a few ms instead of
# ~40 to start). Any doubt, at any step, takes the Node path, which starts the
# daemon, reports unsafe sockets and handles version changes. Nothing here
# is ever evaluated as code: the environment and the daemon's answer are text.
# esbuild.mjs bakes in the version; agent/daemon/address.ts, handshake.ts and
# handoff.ts are the other side of every rule below (test/unit/cli/launcher*.test.ts).

accord_version='@ACCORD_VERSION@'

# --- functions ---

# The directory this script is in, through any chain of symlinks (npm link makes one).
accord_locate() {
  accord_self=$1
  case $accord_self in */*) ;; *) accord_self=./$accord_self ;; esac
  accord_hops=0
  while [ -h "$accord_self" ] && [ "$accord_hops" -lt 40 ]; do
    accord_link=$(readlink -- "$accord_self") || break
    case $accord_link in
      /*) accord_self=$accord_link ;;
      *) accord_self=${accord_self%/*}/$accord_link ;;
    esac
    accord_hops=$((accord_hops + 1))
  done
  accord_dist=${accord_self%/*}
}

accord_node() {
  if ! command -v node >/dev/null 2>&1; then
    printf '%s\n' 'accord: node (version 20 or later) is not on PATH; install it, or run `<node> dist/agent.js` directly.' >&2
    exit 127
  fi
  exec node "$accord_dist/agent.js" "$@"
}

# An absolute path that path.join() leaves as it is: no empty, `.` or `..` segment, no trailing slash.
accord_normal() {
  case $1 in /*) ;; *) return 1 ;; esac
  case $1 in */./* | */../* | *//* | */. | */..) return 1 ;; esac
  case $1 in /) return 0 ;; */) return 1 ;; esac
  return 0
}

# path.join(a, b) for a normal `a` and a plain relative `b`.
accord_join() {
  case $1 in /) accord_joined=/$2 ;; *) accord_joined=$1/$2 ;; esac
}

# defaultDaemonAddress() (agent/daemon/address.ts) on Linux, or return 1 where
# it would differ or the path is unfit for socat's address syntax. Sets
# accord_data, accord_dir, accord_sock.
accord_address() {
  accord_sock=
  if [ -n "${ACCORD_HOME-}" ]; then
    accord_data=$ACCORD_HOME
    accord_normal "$accord_data" || return 1
  else
    case ${XDG_STATE_HOME-} in
      /*) accord_normal "$XDG_STATE_HOME" || return 1; accord_state=$XDG_STATE_HOME ;;
      *)
        # os.homedir() is $HOME when it is set and not empty.
        [ -n "${HOME-}" ] && accord_normal "$HOME" || return 1
        accord_join "$HOME" .local/state
        accord_state=$accord_joined
        ;;
    esac
    accord_join "$accord_state" accord
    accord_data=$accord_joined
  fi
  accord_tag "$accord_data" || return 1
  case ${XDG_RUNTIME_DIR-} in
    /*)
      if [ -z "${ACCORD_HOME-}" ]; then
        accord_normal "$XDG_RUNTIME_DIR" || return 1
        accord_join "$XDG_RUNTIME_DIR" accord
        accord_dir=$accord_joined
        accord_sock=$accord_dir/daemon-$accord_tag.sock
      fi
      ;;
  esac
  if [ -z "$accord_sock" ]; then
    accord_join "$accord_data" run
    accord_dir=$accord_joined
    accord_sock=$accord_dir/daemon.sock
  fi
  # socat reads `,` `:` `!` quotes and more in an address: only plain characters
  # (which are also one byte each, so ${#} is the byte length in any locale).
  case $accord_dir in *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+@~-]*) return 1 ;; esac
  # The address.ts rule (<= 100) for the daemon's socket; the hand-off's name
  # (handoff-<32 hex>.sock) is longer, and the daemon offers none over 100.
  [ "${#accord_sock}" -le 100 ] && [ $((${#accord_dir} + 46)) -le 100 ]
}

# nameTag() (address.ts): the first 12 hex digits of FNV-1a-64 over the UTF-8
# bytes. $(( )) is signed 64-bit, so the hash is kept as two 32-bit halves;
# the prime is 2^40 + 0x1b3, and (hi*2^32 + lo) * prime mod 2^64 is
# lo*0x1b3 + 2^32 * (hi*0x1b3 + lo*2^8): every term stays under 2^43.
accord_tag() {
  accord_bytes=$(printf '%s' "$1" | od -An -tu1 -v) || return 1
  accord_hi=3421674724 # 0xcbf29ce4
  accord_lo=2216829733 # 0x84222325
  for accord_byte in $accord_bytes; do
    case $accord_byte in '' | *[!0123456789]*) return 1 ;; esac
    accord_lo=$((accord_lo ^ accord_byte))
    accord_low=$((accord_lo * 435))
    accord_hi=$(((accord_hi * 435 + accord_lo * 256 + (accord_low >> 32)) & 4294967295))
    accord_lo=$((accord_low & 4294967295))
  done
  accord_tag=$(printf '%08x%08x' "$accord_hi" "$accord_lo")
  accord_tag=${accord_tag%????}
}

# checkSocketPath() (address.ts): the directory and the socket are what they
# seem (lstat: a symlink is neither), owned by this user, closed to group and
# others. A POSIX ACL shows in the group bits (its mask), so 0700/0600 means
# no ACL entry grants anything. A missing socket returns 1: Node starts the daemon.
accord_check() {
  accord_stat=$(stat -c '%u %f' -- /proc/self/ "$accord_dir" "$accord_sock" 2>/dev/null) || return 1
  set -- $accord_stat
  [ "$#" -eq 6 ] || return 1
  for accord_field in "$@"; do
    case $accord_field in '' | *[!0123456789abcdef]*) return 1 ;; esac
  done
  [ "$3" = "$1" ] && [ "$5" = "$1" ] || return 1
  [ $((0x$4 & 0xf000)) -eq $((0x4000)) ] && [ $((0x$4 & 63)) -eq 0 ] || return 1
  [ $((0x$6 & 0xf000)) -eq $((0xc000)) ] && [ $((0x$6 & 63)) -eq 0 ]
}

# The hello the Node bridge sends (agent/cli/bridge.ts), asking for a hand-off:
# the project is the physical working directory (process.cwd()); the env is
# forwardedEnv(process.env) (handshake.ts): the same names, the daemon's own
# keys left out, every value escaped as JSON so that no value can end the
# string and add a key or a flag. Keep the prefixes and DAEMON_KEYS in step.
accord_hello() {
  accord_cwd=$(pwd -P && echo .) || return 1
  accord_cwd=${accord_cwd%?.}
  accord_hello=$(awk '
    function esc(s,   out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        out = out ((c in quoted) ? quoted[c] : c)
      }
      return out
    }
    BEGIN {
      for (i = 1; i < 32; i++) quoted[sprintf("%c", i)] = sprintf("\\u%04x", i)
      quoted["\\"] = "\\\\"; quoted["\""] = "\\\""
      quoted["\n"] = "\\n"; quoted["\r"] = "\\r"; quoted["\t"] = "\\t"
      split("ACCORD_HOME ACCORD_DAEMON_IDLE_EXIT ACCORD_BRIDGE_VERSION_FOR_TESTS ACCORD_SANDBOX ACCORD_APPROVAL_TIMEOUT", own, " ")
      for (i in own) daemons[own[i]] = 1
      env = ""
      for (name in ENVIRON) {
        if (name !~ /^(ANTHROPIC_|OPENAI_|OPENROUTER_|GEMINI_|GOOGLE_GENERATIVE_AI_|ACCORD_)[A-Z0-9_]*$/ || (name in daemons)) continue
        env = env (env == "" ? "" : ",") "\"" name "\":\"" esc(ENVIRON[name]) "\""
      }
      printf "{\"accord\":\"hello\",\"version\":\"%s\",\"handoff\":true,\"flags\":{\"project\":\"%s\",\"env\":{%s}}}\n", esc(ARGV[2]), esc(ARGV[1]), env
    }' "$accord_cwd" "$accord_version")
}

# The daemon's answer, as text: exactly
# {"accord":"welcome","version":"<ours>","pid":<digits>,"handoff":"<dir>/handoff-<32 hex>.sock"}
# else return 1. Sets accord_handoff.
accord_welcome() {
  accord_rest=${1#"{\"accord\":\"welcome\",\"version\":\"$accord_version\",\"pid\":"}
  [ "$accord_rest" != "$1" ] || return 1
  accord_pid=${accord_rest%%,*}
  case $accord_pid in '' | *[!0123456789]*) return 1 ;; esac
  accord_token=${accord_rest#"$accord_pid,\"handoff\":\"$accord_dir/handoff-"}
  [ "$accord_token" != "$accord_rest" ] || return 1
  accord_token=${accord_token%".sock\"}"}
  [ "${#accord_token}" -eq 32 ] || return 1
  case $accord_token in *[!0123456789abcdef]*) return 1 ;; esac
  [ "$accord_rest" = "$accord_pid,\"handoff\":\"$accord_dir/handoff-$accord_token.sock\"}" ] || return 1
  accord_handoff=$accord_dir/handoff-$accord_token.sock
}

# --- main ---

accord_locate "$0"
if [ "$#" -eq 1 ] && [ "$1" = acp ] && [ -d /proc/self ] && [ -z "${ACCORD_BRIDGE_VERSION_FOR_TESTS-}" ] \
  && command -v socat >/dev/null 2>&1; then
  set -f
  IFS=' 
	'
  if accord_address && accord_check && accord_hello; then
    # -t: how long to wait for the answer after the hello is sent; a daemon answers at once.
    accord_answer=$(printf '%s\n' "$accord_hello" | socat -t 5 - "UNIX-CONNECT:$accord_sock" 2>/dev/null | head -c 4096)
    if accord_welcome "$accord_answer"; then
      exec socat STDIO "UNIX-CONNECT:$accord_handoff"
    fi
  fi
  set +f
fi
accord_node "$@"
