#pragma once
/// \file TLS material in memory: PEM text -> BIO -> RAII X509 / EVP_PKEY / X509_STORE, and
/// readable descriptions of OpenSSL failures. Nothing here touches the disk.

#include <tfjob/detail/compiled.hpp>
#include <tfjob/error.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace tfjob::kube::detail {

struct X509Free { void operator()(X509* p) const { X509_free(p); } };
struct PkeyFree { void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); } };
struct StoreFree { void operator()(X509_STORE* p) const { X509_STORE_free(p); } };
struct BioFree { void operator()(BIO* p) const { BIO_free(p); } };
struct SslCtxFree { void operator()(SSL_CTX* p) const { SSL_CTX_free(p); } };
struct SslFree { void operator()(SSL* p) const { SSL_free(p); } };
using X509_ptr = std::unique_ptr<X509, X509Free>;
using EVP_PKEY_ptr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509_STORE_ptr = std::unique_ptr<X509_STORE, StoreFree>;
using BIO_ptr = std::unique_ptr<BIO, BioFree>;
using SSL_CTX_ptr = std::unique_ptr<SSL_CTX, SslCtxFree>;
using SSL_ptr = std::unique_ptr<SSL, SslFree>;

/// Drain OpenSSL's error queue into one line ("" when empty).
std::string openssl_errors();

BIO_ptr mem_bio(const std::string& pem);

/// Every certificate in a PEM bundle; throws config_error naming `what` when there is none
/// or one is malformed.
std::vector<X509_ptr> parse_certificates(const std::string& pem, const std::string& what);

/// A private key from PEM (PKCS#8, PKCS#1 RSA or SEC1 EC).
EVP_PKEY_ptr parse_private_key(const std::string& pem, const std::string& what);

/// A trust store from a PEM CA bundle.
X509_STORE_ptr make_store(const std::string& ca_pem, const std::string& what);

/// Unix time of a certificate's notAfter.
std::time_t not_after(const X509* cert);

/// The DNS and IP subject alternative names of a certificate, for error messages.
std::vector<std::string> subject_alt_names(const X509* cert);

}  // namespace tfjob::kube::detail

#if TFJOB_SDK_DEFINE_KUBE
namespace tfjob::kube::detail {

TFJOB_INLINE std::string openssl_errors() {
  std::string out;
  unsigned long e;
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    const char* reason = ERR_reason_error_string(e);
    if (!out.empty()) out += "; ";
    out += reason ? reason : buf;
  }
  return out;
}

TFJOB_INLINE BIO_ptr mem_bio(const std::string& pem) {
  BIO_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) throw error("out of memory creating a BIO");
  return bio;
}

TFJOB_INLINE std::vector<X509_ptr> parse_certificates(const std::string& pem, const std::string& what) {
  ERR_clear_error();
  std::vector<X509_ptr> out;
  if (pem.find("-----BEGIN") == std::string::npos)
    throw config_error(what + " is not PEM: expected \"-----BEGIN CERTIFICATE-----\"");
  auto bio = mem_bio(pem);
  for (;;) {
    X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (!x) break;
    out.emplace_back(x);
  }
  unsigned long err = ERR_peek_last_error();
  if (err && !(ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE)) {
    throw config_error(what + " holds a malformed PEM certificate (" + openssl_errors() + ")");
  }
  ERR_clear_error();
  if (out.empty()) throw config_error(what + " holds no PEM certificate");
  return out;
}

TFJOB_INLINE EVP_PKEY_ptr parse_private_key(const std::string& pem, const std::string& what) {
  ERR_clear_error();
  if (pem.find("-----BEGIN") == std::string::npos)
    throw config_error(what + " is not PEM: expected \"-----BEGIN ... PRIVATE KEY-----\"");
  auto bio = mem_bio(pem);
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (!k) throw config_error(what + " holds no usable PEM private key (" + openssl_errors() + ")");
  return EVP_PKEY_ptr(k);
}

TFJOB_INLINE X509_STORE_ptr make_store(const std::string& ca_pem, const std::string& what) {
  auto certs = parse_certificates(ca_pem, what);
  X509_STORE_ptr store(X509_STORE_new());
  for (auto& c : certs) X509_STORE_add_cert(store.get(), c.get());
  return store;
}

TFJOB_INLINE std::time_t not_after(const X509* cert) {
  const ASN1_TIME* t = X509_get0_notAfter(cert);
  struct tm tm {};
  if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return timegm(&tm);
}

TFJOB_INLINE std::vector<std::string> subject_alt_names(const X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!names) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      const unsigned char* d = ASN1_STRING_get0_data(n->d.dNSName);
      out.emplace_back(reinterpret_cast<const char*>(d), ASN1_STRING_length(n->d.dNSName));
    } else if (n->type == GEN_IPADD) {
      const unsigned char* d = ASN1_STRING_get0_data(n->d.iPAddress);
      int len = ASN1_STRING_length(n->d.iPAddress);
      char buf[64] = {0};
      if (len == 4) {
        std::snprintf(buf, sizeof buf, "%d.%d.%d.%d", d[0], d[1], d[2], d[3]);
        out.emplace_back(buf);
      } else if (len == 16) {
        std::string s;
        for (int k = 0; k < 16; k += 2) {
          std::snprintf(buf, sizeof buf, "%s%x", k ? ":" : "", (d[k] << 8) | d[k + 1]);
          s += buf;
        }
        out.push_back(s);
      }
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

}  // namespace tfjob::kube::detail
#endif  // TFJOB_SDK_DEFINE_KUBE
