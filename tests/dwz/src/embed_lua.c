// A C program that runs Lua through Debian's liblua5.4.so.0 (its -dbg file shares names and types with
// /usr/lib/debug/.dwz/x86_64-linux-gnu/liblua5.4-0.debug): real work in the library, with C callbacks
// from Lua into the program, until a signal kills it (tests/dwz/check_debian.py).
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

// Called from Lua for every comparison of table.sort: library → program → library frames.
static int compare_keys(lua_State *L)
{
	lua_Integer a = luaL_checkinteger(L, 1), b = luaL_checkinteger(L, 2);
	lua_pushboolean(L, (a * 7919) % 2003 < (b * 7919) % 2003);
	return 1;
}

int main(void)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	lua_register(L, "compare_keys", compare_keys);
	const char *script = "local function deep(n, t)\n"
			     "  if n == 0 then table.sort(t, compare_keys) return #t end\n"
			     "  return deep(n - 1, t) + 0\n"
			     "end\n"
			     "while true do\n"
			     "  local t = {}\n"
			     "  for i = 1, 3000 do t[i] = i end\n"
			     "  deep(100, t)\n"
			     "  local s = string.rep('ab', 500):gsub('b', function(c) return c:upper() end)\n"
			     "end\n";
	if (luaL_dostring(L, script) != LUA_OK)
		return 1;
	lua_close(L);
	return 0;
}
