#pragma once
/// \file The bodies of <tfjob/kube/detail/tls.hpp>: that header includes this file at its end, in its
/// `#if TFJOB_SDK_DEFINE_KUBE` section (detail/compiled.hpp says when that is compiled).
/// Include <tfjob/kube/detail/tls.hpp>, never this file.

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
