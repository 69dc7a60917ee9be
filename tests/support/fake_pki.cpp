// In-memory certificate authority for the fake API server (OpenSSL 3 API, EC P-256).
#include "support/fake_pki.hpp"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace tfjob::test {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_NAME* p) const { X509_NAME_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;

[[noreturn]] void fail(const char* what) {
  char buf[256] = {0};
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  throw std::runtime_error(std::string("fake PKI: ") + what + ": " + buf);
}

Key new_key() {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  if (!k) fail("EVP_EC_gen");
  return Key(k);
}

std::string bio_string(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string cert_pem(X509* c) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(b.get(), c)) fail("PEM_write_bio_X509");
  return bio_string(b.get());
}

std::string key_pem(EVP_PKEY* k) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_PrivateKey(b.get(), k, nullptr, nullptr, 0, nullptr, nullptr))
    fail("PEM_write_bio_PrivateKey");
  return bio_string(b.get());
}

Cert load_cert(const std::string& pem) {
  Bio b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509* c = PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr);
  if (!c) fail("PEM_read_bio_X509");
  return Cert(c);
}

Key load_key(const std::string& pem) {
  Bio b(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr);
  if (!k) fail("PEM_read_bio_PrivateKey");
  return Key(k);
}

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) fail("X509V3_EXT_conf_nid");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

struct Subject {
  std::string cn;
  std::string org;
};

enum class Kind { ca, server, client };

/// The serving certificate's subjectAltName ("" = none).
constexpr const char* default_server_san = "IP:127.0.0.1,DNS:localhost";

/// Makes a certificate for `key`, signed by issuer (self-signed when issuer is null).
Cert make_cert(const Subject& subj, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key,
               Kind kind, long not_before_s, long valid_for_s, const std::string& san = default_server_san) {
  Cert c(X509_new());
  X509_set_version(c.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), not_before_s + valid_for_s);
  X509_set_pubkey(c.get(), key);
  X509_NAME* name = X509_get_subject_name(c.get());
  if (!subj.org.empty())
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(subj.org.c_str()), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(subj.cn.c_str()), -1, -1, 0);
  X509* iss = issuer ? issuer : c.get();
  X509_set_issuer_name(c.get(), X509_get_subject_name(iss));
  switch (kind) {
    case Kind::ca:
      add_ext(c.get(), iss, NID_basic_constraints, "critical,CA:TRUE");
      add_ext(c.get(), iss, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
      add_ext(c.get(), iss, NID_subject_key_identifier, "hash");
      break;
    case Kind::server:
      add_ext(c.get(), iss, NID_basic_constraints, "critical,CA:FALSE");
      add_ext(c.get(), iss, NID_key_usage, "critical,digitalSignature,keyEncipherment");
      add_ext(c.get(), iss, NID_ext_key_usage, "serverAuth");
      if (!san.empty()) add_ext(c.get(), iss, NID_subject_alt_name, san.c_str());
      add_ext(c.get(), iss, NID_authority_key_identifier, "keyid:always");
      break;
    case Kind::client:
      add_ext(c.get(), iss, NID_basic_constraints, "critical,CA:FALSE");
      add_ext(c.get(), iss, NID_key_usage, "critical,digitalSignature,keyEncipherment");
      add_ext(c.get(), iss, NID_ext_key_usage, "clientAuth");
      add_ext(c.get(), iss, NID_authority_key_identifier, "keyid:always");
      break;
  }
  if (!X509_sign(c.get(), issuer_key ? issuer_key : key, EVP_sha256())) fail("X509_sign");
  return c;
}

PemPair pair(X509* c, EVP_PKEY* k) { return {cert_pem(c), key_pem(k)}; }

}  // namespace

FakePki FakePki::generate() {
  FakePki p;
  const long year = 86400L * 365;
  Key ca_key = new_key();
  Cert ca = make_cert({"fake-apiserver-ca", ""}, ca_key.get(), nullptr, nullptr, Kind::ca, -3600,
                      10 * year);
  p.ca = pair(ca.get(), ca_key.get());

  Key srv_key = new_key();
  Cert srv = make_cert({"kube-apiserver", ""}, srv_key.get(), ca.get(), ca_key.get(), Kind::server,
                       -3600, year);
  p.server = pair(srv.get(), srv_key.get());

  Key adm_key = new_key();
  Cert adm = make_cert({"admin", "system:masters"}, adm_key.get(), ca.get(), ca_key.get(),
                       Kind::client, -3600, year);
  p.admin_client = pair(adm.get(), adm_key.get());

  Key exp_key = new_key();
  Cert exp = make_cert({"admin", "system:masters"}, exp_key.get(), ca.get(), ca_key.get(),
                       Kind::client, -3 * 86400L, 2 * 86400L);  // ended a day ago
  p.expired_client = pair(exp.get(), exp_key.get());

  Key wca_key = new_key();
  Cert wca = make_cert({"fake-apiserver-ca", ""}, wca_key.get(), nullptr, nullptr, Kind::ca,
                       -3600, 10 * year);  // same name, different key: a true impostor
  p.wrong_ca = pair(wca.get(), wca_key.get());

  Key wcl_key = new_key();
  Cert wcl = make_cert({"admin", "system:masters"}, wcl_key.get(), wca.get(), wca_key.get(),
                       Kind::client, -3600, year);
  p.wrong_ca_client = pair(wcl.get(), wcl_key.get());
  return p;
}

PemPair FakePki::issue_client(const std::string& common_name, const std::string& organization,
                              long valid_from_offset_s, long valid_for_s) const {
  Cert ca_cert = load_cert(ca.cert);
  Key ca_key = load_key(ca.key);
  Key k = new_key();
  Cert c = make_cert({common_name, organization}, k.get(), ca_cert.get(), ca_key.get(),
                     Kind::client, valid_from_offset_s, valid_for_s);
  return pair(c.get(), k.get());
}

PemPair FakePki::issue_server(const std::string& common_name, const std::string& san) const {
  Cert ca_cert = load_cert(ca.cert);
  Key ca_key = load_key(ca.key);
  Key k = new_key();
  Cert c = make_cert({common_name, ""}, k.get(), ca_cert.get(), ca_key.get(), Kind::server, -3600, 86400L * 365, san);
  return pair(c.get(), k.get());
}

}  // namespace tfjob::test
