# bash completion for coretriage. The options come from `coretriage --help`, the one option table,
# so this file never falls behind it.
_coretriage()
{
	local cur prev words cword
	_init_completion -s || return
	case $prev in
	-f | --format)
		COMPREPLY=($(compgen -W 'text json ndjson markdown sarif folded' -- "$cur"))
		return ;;
	--color | --progress)
		COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
		return ;;
	--unwinder)
		COMPREPLY=($(compgen -W 'dwfl libunwind' -- "$cur"))
		return ;;
	--thread)
		COMPREPLY=($(compgen -W 'all crashed' -- "$cur"))
		return ;;
	--sections)
		COMPREPLY=($(compgen -W 'verdict warnings kernel hang stacks trail tasks registers disassembly modules all' -- "${cur##*,}"))
		return ;;
	--sysroot | --debug-dir | --cache-dir | --source-dir | --source-root)
		_filedir -d
		return ;;
	-o | --output | -e | --exe | --executable | -c | --core | --flamegraph | --known | --summary | --logs | --journal)
		_filedir
		return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$("${words[0]}" --help 2>/dev/null | grep -oE -- "(^|[ ,])--?[a-zA-Z][a-z0-9-]*=?" | tr -d " ,")' -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W 'batch' -- "$cur"))
	fi
	_filedir
}
complete -F _coretriage coretriage
