# Sourced by the GCS end-to-end tests (lib.sh) and by any test that needs Ray TLS certificates.
# make_certs DIR [SANS]: a test PKI made with openssl (EC P-256, valid 2 days), as Ray's TLS uses it: one CA
# signs a pod certificate that serves and is presented as client certificate (SANs localhost,
# 127.0.0.1 and a head FQDN); `other-ca` signs a certificate no server here trusts; `nolocal` is
# signed by the right CA but names only the FQDN (no 127.0.0.1). SANS ("IP:10.0.0.5,…") are added to
# the pod certificate: Ray's own processes dial each other by node IP, so real ones need those too.
make_certs() {
  local d=$1 extra=${2:+,$2}
  command -v openssl >/dev/null || { echo "SKIP: openssl is missing (scripts/deps --test)"; exit 125; }
  mkdir -p "$d"
  local ca
  for ca in ca other-ca; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=test $ca" \
      -keyout "$d/$ca.key" -out "$d/$ca.crt" 2>/dev/null
  done
  # leaf NAME CA SANS
  leaf() {
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" \
      -keyout "$d/$1.key" -out "$d/$1.csr" 2>/dev/null
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3" >"$d/$1.ext"
    openssl x509 -req -in "$d/$1.csr" -CA "$d/$2.crt" -CAkey "$d/$2.key" -CAcreateserial -days 2 \
      -extfile "$d/$1.ext" -out "$d/$1.crt" 2>/dev/null
  }
  leaf pod ca "DNS:localhost,IP:127.0.0.1,DNS:training-0.training.ml.svc.cluster.local$extra"
  leaf stranger other-ca "DNS:localhost,IP:127.0.0.1"
  leaf nolocal ca "DNS:training-0.training.ml.svc.cluster.local"
}

