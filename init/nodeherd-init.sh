#!/bin/sh
# nodeherd-init: bootstraps a node. Downloads the nodeherd agent and its Node runtime from the control
# plane, checks their sha256, writes the agent's CA and kubeconfig, installs and starts
# nodeherd-agent.service (Restart=always), then disables itself (nodeherd-init.service, if it ran as
# one). Safe to run again: what is already in place is kept, and the agent restarts only when its
# unit, binaries or credentials changed. Once the agent has applied a revision it owns its own
# binary (self-updates come as config), and a second run leaves the binary alone.
#
# Usage: nodeherd-init.sh --server URL --token TOKEN (--ca-file FILE | --ca-data BASE64) [options]
#   --server URL          the API server, e.g. https://10.0.0.1:6443          [NODEHERD_SERVER]
#   --token TOKEN         the node's bearer token                             [NODEHERD_TOKEN]
#   --token-file FILE     ... read from a file instead                        [NODEHERD_TOKEN_FILE]
#   --ca-file FILE        the cluster CA (PEM)                                [NODEHERD_CA_FILE]
#   --ca-data BASE64      ... as base64 of the PEM (certificate-authority-data) [NODEHERD_CA_DATA]
#   --node-name NAME      default: the host name                              [NODEHERD_NODE_NAME]
#   --artefacts URL       default: <server>/nodeherd/agent                    [NODEHERD_ARTEFACTS]
#                         (or the controller's: https://<its Service or NodePort>/nodeherd/agent)
#   --artefacts-ca-file FILE  CA of the artefacts URL's certificate, when not the cluster CA
#                                                                      [NODEHERD_ARTEFACTS_CA_FILE]
#   --artefacts-ca-data BASE64  ... as base64 of the PEM               [NODEHERD_ARTEFACTS_CA_DATA]
#   --agent-sha256 HEX    expected digest of nodeherd-agent.mjs (default: the server's .sha256)
#   --runtime-sha256 HEX  expected digest of node.gz (default: the server's .sha256)
#   --agent-env K=V       extra environment for the agent (repeatable)        [NODEHERD_AGENT_ENV]
set -eu

PREFIX=/usr/local/lib/nodeherd
CONF_DIR=/etc/nodeherd
STATE_DIR=/var/lib/nodeherd
UNIT=nodeherd-agent.service
UNIT_FILE=/etc/systemd/system/$UNIT
SELF_UNIT=nodeherd-init.service

die() {
  echo "nodeherd-init: error: $*" >&2
  exit 1
}
log() { echo "nodeherd-init: $*" >&2; }

SERVER=${NODEHERD_SERVER:-}
TOKEN=${NODEHERD_TOKEN:-}
TOKEN_FILE=${NODEHERD_TOKEN_FILE:-}
CA_FILE=${NODEHERD_CA_FILE:-}
CA_DATA=${NODEHERD_CA_DATA:-}
NODE_NAME=${NODEHERD_NODE_NAME:-}
ARTEFACTS=${NODEHERD_ARTEFACTS:-}
ARTEFACTS_CA_FILE=${NODEHERD_ARTEFACTS_CA_FILE:-}
ARTEFACTS_CA_DATA=${NODEHERD_ARTEFACTS_CA_DATA:-}
AGENT_SHA256=${NODEHERD_AGENT_SHA256:-}
RUNTIME_SHA256=${NODEHERD_RUNTIME_SHA256:-}
AGENT_ENV=${NODEHERD_AGENT_ENV:-}

while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value (see the usage at the top of this script)"
  case $1 in
    --server) SERVER=$2 ;;
    --token) TOKEN=$2 ;;
    --token-file) TOKEN_FILE=$2 ;;
    --ca-file) CA_FILE=$2 ;;
    --ca-data) CA_DATA=$2 ;;
    --node-name) NODE_NAME=$2 ;;
    --artefacts) ARTEFACTS=$2 ;;
    --artefacts-ca-file) ARTEFACTS_CA_FILE=$2 ;;
    --artefacts-ca-data) ARTEFACTS_CA_DATA=$2 ;;
    --agent-sha256) AGENT_SHA256=$2 ;;
    --runtime-sha256) RUNTIME_SHA256=$2 ;;
    --agent-env) AGENT_ENV="$AGENT_ENV $2" ;;
    *) die "unknown option $1 (see the usage at the top of this script)" ;;
  esac
  shift 2
done

# --- checks that need nothing from the network -------------------------------------------------
[ "$(id -u)" = 0 ] || die "must run as root"
# sd_booted(3): systemd is PID 1 exactly when this directory exists.
if [ ! -d /run/systemd/system ] || ! command -v systemctl >/dev/null 2>&1; then
  die "systemd is not running on this machine: nodeherd-agent runs as a systemd service"
fi
case $SERVER in https://?*) ;; '') die "--server is required" ;; *) die "--server must be an https:// URL" ;; esac
SERVER=${SERVER%/}
[ -n "$TOKEN_FILE" ] && { TOKEN=$(cat "$TOKEN_FILE") || die "cannot read $TOKEN_FILE"; }
[ -n "$TOKEN" ] || die "--token or --token-file is required"
[ -n "$CA_FILE$CA_DATA" ] || die "--ca-file or --ca-data is required"
[ -n "$NODE_NAME" ] || NODE_NAME=$(uname -n)
ARTEFACTS=${ARTEFACTS:-$SERVER/nodeherd/agent}
ARTEFACTS=${ARTEFACTS%/}
if command -v curl >/dev/null 2>&1; then FETCHER=curl
elif command -v wget >/dev/null 2>&1; then FETCHER=wget
else die "neither curl nor wget is installed"; fi

umask 022
mkdir -p "$PREFIX" "$CONF_DIR"
chmod 700 "$CONF_DIR"
WORK=$(mktemp -d "$PREFIX/.init.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CHANGED=

# install_file TMP DEST MODE: moves TMP over DEST unless they are equal (then CHANGED stays as is).
install_file() {
  if [ -f "$2" ] && cmp -s "$1" "$2"; then rm -f "$1"; return 0; fi
  chmod "$3" "$1"
  mv -f "$1" "$2"
  CHANGED=1
}

# --- credentials -------------------------------------------------------------------------------
if [ -n "$CA_DATA" ]; then
  printf '%s' "$CA_DATA" | base64 -d >"$WORK/ca.crt" 2>/dev/null || die "--ca-data is not base64"
else
  cat "$CA_FILE" >"$WORK/ca.crt" || die "cannot read $CA_FILE"
fi
grep -q -- '-----BEGIN CERTIFICATE-----' "$WORK/ca.crt" || die "the CA is not a PEM certificate"
CA_B64=$(base64 "$WORK/ca.crt" | tr -d '\n')
CA=$WORK/ca.crt
# The artefacts may come from another server than the API server (the controller's HTTPS endpoint),
# whose certificate another CA signed.
ARTEFACTS_CA=$CA
if [ -n "$ARTEFACTS_CA_DATA" ]; then
  printf '%s' "$ARTEFACTS_CA_DATA" | base64 -d >"$WORK/artefacts-ca.crt" 2>/dev/null || die "--artefacts-ca-data is not base64"
  ARTEFACTS_CA=$WORK/artefacts-ca.crt
elif [ -n "$ARTEFACTS_CA_FILE" ]; then
  cat "$ARTEFACTS_CA_FILE" >"$WORK/artefacts-ca.crt" || die "cannot read $ARTEFACTS_CA_FILE"
  ARTEFACTS_CA=$WORK/artefacts-ca.crt
fi
grep -q -- '-----BEGIN CERTIFICATE-----' "$ARTEFACTS_CA" || die "the artefacts CA is not a PEM certificate"

# request URL OUT [auth]: GET with the cluster CA (and the token when asked); sets STATUS to the
# HTTP status, 000 when no answer came. The transfer tool's own words are in $WORK/err.
request() {
  url=$1 out=$2 auth=${3:-}
  ca=$ARTEFACTS_CA
  [ -z "$auth" ] || ca=$CA
  if [ $FETCHER = curl ]; then
    set -- -sS --retry 2 --connect-timeout 10 --cacert "$ca" -o "$out" -w '%{http_code}'
    if [ -n "$auth" ]; then
      printf 'Authorization: Bearer %s\n' "$TOKEN" >"$WORK/auth"
      set -- "$@" -H "@$WORK/auth"
    else
      set -- "$@" -L # artefacts may sit behind a redirect; the token never follows one
    fi
    STATUS=$(curl "$@" "$url" 2>"$WORK/err") || STATUS=000
  else
    : >"$WORK/wgetrc"
    [ -z "$auth" ] || printf 'header = Authorization: Bearer %s\n' "$TOKEN" >"$WORK/wgetrc"
    WGETRC=$WORK/wgetrc wget -S -nv --tries=2 --timeout=10 --ca-certificate="$ca" -O "$out" "$url" 2>"$WORK/err" || :
    STATUS=$(sed -n 's/^ *HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*/\1/p' "$WORK/err" | tail -n 1)
  fi
  STATUS=${STATUS:-000}
}
transfer_error() { grep -v '^ ' "$WORK/err" | tr '\n' ' ' | sed 's/ *$//'; }

# --- the API server ------------------------------------------------------------------------------
# One request checks the address, the CA and the token: the token may read its own Node, which need
# not exist yet (404 is fine).
request "$SERVER/api/v1/nodes/$NODE_NAME" /dev/null auth
case $STATUS in
  200 | 404) ;;
  000) die "cannot reach the API server at $SERVER: $(transfer_error)" ;;
  401) die "the API server at $SERVER rejected the token" ;;
  403) die "the token may not act as node $NODE_NAME" ;;
  *) die "the API server at $SERVER answered HTTP $STATUS" ;;
esac

# --- the artefacts ---------------------------------------------------------------------------------
# expected_digest NAME GIVEN: sets DIGEST to GIVEN, else to the digest in the server's NAME.sha256.
expected_digest() {
  DIGEST=$2
  if [ -z "$DIGEST" ]; then
    get "$1.sha256"
    DIGEST=$(cut -d ' ' -f 1 "$WORK/$1.sha256")
  fi
  case $DIGEST in
    *[!0-9a-f]*) die "the sha256 of $1 is not a hex digest" ;;
  esac
  [ ${#DIGEST} = 64 ] || die "the sha256 of $1 is not a hex digest"
}

# get NAME: $ARTEFACTS/NAME into $WORK/NAME.
get() {
  request "$ARTEFACTS/$1" "$WORK/$1"
  [ "$STATUS" = 200 ] || die "cannot download $ARTEFACTS/$1: $(if [ "$STATUS" = 000 ]; then transfer_error; else echo "HTTP $STATUS"; fi)"
}

# download NAME DIGEST: into $WORK/NAME, verified.
download() {
  get "$1"
  actual=$(sha256sum "$WORK/$1" | cut -d ' ' -f 1)
  [ "$actual" = "$2" ] || die "checksum mismatch for $1: expected $2, got $actual"
}

expected_digest node.gz "$RUNTIME_SHA256"
if [ "$(cat "$PREFIX/node.gz.sha256" 2>/dev/null)" != "$DIGEST" ] || [ ! -x "$PREFIX/node" ]; then
  log "downloading the Node runtime with $FETCHER"
  download node.gz "$DIGEST"
  gzip -dc "$WORK/node.gz" >"$WORK/node" || die "node.gz does not decompress"
  install_file "$WORK/node" "$PREFIX/node" 755
  printf '%s\n' "$DIGEST" >"$PREFIX/node.gz.sha256"
fi

if [ -e "$STATE_DIR/last-applied.json" ] && [ -f "$PREFIX/nodeherd-agent.mjs" ]; then
  log "the agent already manages this node: keeping its binary"
else
  expected_digest nodeherd-agent.mjs "$AGENT_SHA256"
  if [ "$(sha256sum "$PREFIX/nodeherd-agent.mjs" 2>/dev/null | cut -d ' ' -f 1)" != "$DIGEST" ]; then
    log "downloading the agent with $FETCHER"
    download nodeherd-agent.mjs "$DIGEST"
    install_file "$WORK/nodeherd-agent.mjs" "$PREFIX/nodeherd-agent.mjs" 755
  fi
fi

# --- kubeconfig and unit -------------------------------------------------------------------------
# The token is a file of its own that the kubeconfig names (tokenFile): the agent reads it again when
# it changes, so rotating the node's token is replacing this one file (by rename), without a restart.
printf '%s\n' "$TOKEN" >"$WORK/token"
BEFORE_TOKEN=$CHANGED
install_file "$WORK/token" "$CONF_DIR/token" 600
CHANGED=$BEFORE_TOKEN
cat >"$WORK/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: nodeherd
  cluster:
    server: $SERVER
    certificate-authority-data: $CA_B64
users:
- name: $NODE_NAME
  user:
    tokenFile: $CONF_DIR/token
contexts:
- name: nodeherd
  context:
    cluster: nodeherd
    user: $NODE_NAME
current-context: nodeherd
EOF
install_file "$WORK/ca.crt" "$CONF_DIR/ca.crt" 644
install_file "$WORK/kubeconfig" "$CONF_DIR/kubeconfig" 600

# What differs between nodes goes to agent.env, so the unit itself is the same on every node and a
# pool's config can take it over.
{
  echo "NODEHERD_NODE_NAME=$NODE_NAME"
  for pair in $AGENT_ENV; do
    case $pair in *=*) echo "$pair" ;; *) die "--agent-env wants K=V, got $pair" ;; esac
  done
} >"$WORK/agent.env"
install_file "$WORK/agent.env" "$CONF_DIR/agent.env" 644

cat >"$WORK/unit" <<EOF
# Written by nodeherd-init; a pool's config may take it over.
[Unit]
Description=nodeherd node agent
Wants=network-online.target
After=network-online.target
# Never give up restarting the agent: it is the only way back to a managed node.
StartLimitIntervalSec=0

[Service]
Environment=NODEHERD_KUBECONFIG=$CONF_DIR/kubeconfig NODE_COMPILE_CACHE=/var/cache/nodeherd/compile-cache
EnvironmentFile=$CONF_DIR/agent.env
# The agent idles on every node: V8's lite mode and a 1 MB young generation save ~12 MB of RSS, and
# flushing the bytecode of functions not run since the last full GC (what an apply left) 0.6 MB more.
# --use-openssl-ca: node:tls does not parse Node's bundled root CAs as it loads; the agent trusts only
# the CAs its connections name (1.8 MB with that). --single-threaded-gc: no GC helper threads (1 MB).
ExecStart=$PREFIX/node --lite-mode --max-semi-space-size=1 --bytecode-old-age=1 --use-openssl-ca --single-threaded-gc $PREFIX/nodeherd-agent.mjs
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
EOF
install_file "$WORK/unit" "$UNIT_FILE" 644

systemctl daemon-reload
systemctl enable --quiet "$UNIT"
if [ -n "$CHANGED" ]; then
  systemctl restart "$UNIT" || die "$UNIT did not start: see journalctl -u $UNIT"
else
  systemctl start "$UNIT" || die "$UNIT did not start: see journalctl -u $UNIT"
fi
if systemctl cat "$SELF_UNIT" >/dev/null 2>&1; then
  systemctl disable --quiet "$SELF_UNIT" 2>/dev/null || true
fi
log "$UNIT is running on node $NODE_NAME"
