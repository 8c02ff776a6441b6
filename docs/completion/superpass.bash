# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bash completion of the `superpass` command.
#
# The commands, each command's options, which options take a value and
# kmod's verbs are read from the --help of the very superpass being
# completed (the first word of the line), so they cannot drift from it.
# A value named FILE, F or TRACE completes file names, DIR directories,
# one whose description lists its choices completes those (in a LIST, the
# item after the last comma), others (N, NAME, ...) nothing. After `--`,
# `run` and `record` complete a command, then that command's arguments.

# _superpass_help BIN ARGS...: BIN ARGS --help, or nothing.
_superpass_help()
{
	local bin=$1
	shift
	"$bin" "$@" --help 2>/dev/null
}

# _superpass_parse_opts HELP: the options HELP names into _superpass_opts
# (a list) and, for those that take a value, the value's name into
# _superpass_optarg[OPTION] ("--json FILE", "-c NAME", "-o, --output FILE").
_superpass_parse_opts()
{
	local help=$1 tok opt arg short
	_superpass_opts=()
	_superpass_optarg=()
	_superpass_long=()
	while read -r tok; do
		tok=${tok#[][ ,(|]}
		_superpass_opts+=("$tok")
	done < <(grep -oE -- '(^|[][ ,(|])--?[a-zA-Z][a-zA-Z0-9-]*' <<<"$help")
	while read -r opt arg; do
		_superpass_optarg[$opt]=$arg
	done < <(grep -oE -- '--?[a-zA-Z][a-zA-Z0-9-]* [A-Z][A-Z_=]*' <<<"$help")
	# "-x, --long ARG": the short option takes the same value
	while read -r short opt; do
		_superpass_long[$short]=$opt
		[[ -n ${_superpass_optarg[$opt]-} ]] &&
			_superpass_optarg[$short]=${_superpass_optarg[$opt]}
	done < <(sed -n 's/^ *\(-[a-zA-Z]\), \(--[a-z0-9-]*\) .*/\1 \2/p' <<<"$help")
	mapfile -t _superpass_opts < <(printf '%s\n' "${_superpass_opts[@]}" | sort -u)
}

# _superpass_values HELP OPTION: the values of OPTION when its description
# starts by listing them, as "none,pi,rt-ui (default all)" (continued on the
# next line after a comma) or "auto, fifo, nice or observe".
_superpass_values()
{
	local text re_list='^[a-z][a-z0-9-]*(,[a-z][a-z0-9-]*)+$'
	local re_words='^(([a-z][a-z0-9-]*, )+[a-z][a-z0-9-]* or [a-z][a-z0-9-]*)([ ,;.]|$)'
	text=$(awk -v opt="$2" '
		found && (/^ *-/ || /^ *$/ || !/^   /) { exit }
		found { sub(/^ +/, ""); printf "%s%s", (out ~ /,$/ ? "" : " "), $0; out = out $0; next }
		{
			for (i = 1; i < NF; i++)
				if ($i == opt) {
					found = 1
					for (j = i + 2; j <= NF; j++)
						out = out (j > i + 2 ? " " : "") $j
					printf "%s", out
					next
				}
		}' <<<"$1")
	text=${text%%(*}
	text=${text%% }
	if [[ ${text%% *} =~ $re_list ]]; then
		tr , '\n' <<<"${text%% *}"
	elif [[ $text =~ $re_words ]]; then
		text=${BASH_REMATCH[1]}
		text=${text// or /, }
		tr -d ' ' <<<"$text" | tr , '\n'
	fi
}

# _superpass_files KIND CUR: file (KIND f) or directory (KIND d) names.
_superpass_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -"$1" -- "$2")
}

_superpass()
{
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]}
	local cmd help i w pos=() cmd_at=0 verb=
	local -a _superpass_opts
	local -A _superpass_optarg _superpass_long
	COMPREPLY=()
	# a literal "~/" the shell has not expanded in the word being completed
	# shellcheck disable=SC2088
	[[ $bin == "~/"* ]] && bin=$HOME/${bin#"~/"}

	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_superpass_help "$bin" |
				sed -n 's/^\(usage:\)\{0,1\} *superpass \([a-z][a-z-]*\).*/\2/p' |
				sort -u)" -- "$cur")
		fi
		return
	fi
	cmd=${COMP_WORDS[1]}
	if [[ $cmd == bench && ${COMP_WORDS[2]-} == micro ]] && ((COMP_CWORD > 2)); then
		help=$(_superpass_help "$bin" bench micro)
	else
		help=$(_superpass_help "$bin" "$cmd")
	fi
	[[ -n $help ]] || return
	_superpass_parse_opts "$help"
	_superpass_opts+=(--version) # every command has it (superpass(1))

	# The words before the cursor: options, their values, positionals;
	# for run and record, where CMD starts.
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			cmd_at=$((i + 1))
			break
		elif [[ $w == -?* && $w != *=* && -n ${_superpass_optarg[$w]-} ]]; then
			((i++))
		elif [[ $w != -* ]]; then
			if [[ $cmd == run || $cmd == record ]]; then
				cmd_at=$i
				break
			fi
			pos+=("$w")
		fi
	done
	if ((cmd_at > 0)); then
		if ((COMP_CWORD == cmd_at)); then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		elif declare -F _command_offset >/dev/null; then
			_command_offset "$cmd_at"   # bash-completion: CMD's own completion
		else
			_superpass_files f "$cur"
		fi
		return
	fi

	# the value of an option
	w=${COMP_WORDS[COMP_CWORD - 1]}
	if ((COMP_CWORD > 2)) && [[ $w == -?* && -n ${_superpass_optarg[$w]-} ]]; then
		case ${_superpass_optarg[$w]} in
		FILE | F | TRACE) _superpass_files f "$cur" ;;
		DIR) _superpass_files d "$cur" ;;
		*)
			# a value the help lists; in a LIST, after the last comma
			local v head=
			[[ ${_superpass_optarg[$w]} == LIST ]] && [[ $cur == *,* ]] && head=${cur%,*},
			v=$(_superpass_values "$help" "${_superpass_long[$w]-$w}")
			[[ -n $v ]] && mapfile -t COMPREPLY < <(compgen -P "$head" -W "$v" -- "${cur##*,}")
			[[ -n $head ]] && compopt -o nospace 2>/dev/null
			;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${_superpass_opts[*]}" -- "$cur")
		return
	fi

	# positionals
	case $cmd in
	run | record)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
		;;
	bench)
		((${#pos[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "micro" -- "$cur")
		;;
	sim | analyze | replay)
		((${#pos[@]} == 0)) && _superpass_files f "$cur"
		;;
	kmod)
		verb=${pos[0]-}
		if [[ -z $verb ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' \
				<<<"$help" | sort -u)" -- "$cur")
		elif [[ $verb == mark || $verb == unmark ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(cd /proc 2>/dev/null && echo [0-9]*)" -- "$cur")
		fi
		;;
	esac
}
complete -F _superpass superpass
