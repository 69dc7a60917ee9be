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
#include <tfjob/kube/detail/impl/tls_inl.hpp>
#endif  // TFJOB_SDK_DEFINE_KUBE
