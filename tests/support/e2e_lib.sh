# Helpers for end-to-end tests of the built binary ($RAYLAUNCH_BIN). Source it; call `finish`.
: "${RAYLAUNCH_BIN:?set RAYLAUNCH_BIN to the built raylaunch}"
: "${TESTS_DIR:?set TESTS_DIR to tests/}"
RL=$RAYLAUNCH_BIN
PY=/usr/bin/python3  # Debian's interpreter (python3-yaml etc.), not a pyenv one on PATH
WORK=$(mktemp -d /tmp/raylaunch-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

source "$TESTS_DIR/support/tally.sh"

# make_tree KIND DIR [HOSTNAME]: a fake node tree (tests/support/make-node-tree).
make_tree() { bash "$TESTS_DIR/support/make-node-tree" "$@"; }
