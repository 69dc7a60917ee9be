#pragma once
/// \file Certificates for the fake API server, made in memory with OpenSSL at startup:
/// a CA, a serving certificate (IP:127.0.0.1, DNS:localhost), an admin client
/// certificate (CN=admin, O=system:masters), an expired client certificate, and a second,
/// unrelated "wrong" CA with its own client certificate, for negative TLS tests.
#include <string>

namespace tfjob::test {

/// A PEM certificate with its PEM private key.
struct PemPair {
  std::string cert;
  std::string key;
};

/// Everything the fake server and its tests need; all PEM text, nothing on disk.
struct FakePki {
  PemPair ca;                  ///< the server's CA (signs the serving and client certs)
  PemPair server;              ///< serving cert: SAN IP:127.0.0.1, DNS:localhost
  PemPair admin_client;        ///< CN=admin, O=system:masters, signed by `ca`
  PemPair expired_client;      ///< CN=admin, O=system:masters, expired a day ago
  PemPair wrong_ca;            ///< a CA that signed neither the server nor `admin_client`
  PemPair wrong_ca_client;     ///< CN=admin, O=system:masters, signed by `wrong_ca`

  /// Generates a fresh set (EC P-256 keys; a few milliseconds).
  static FakePki generate();

  /// Issues another client certificate signed by `ca` (e.g. for a non-admin user).
  PemPair issue_client(const std::string& common_name, const std::string& organization,
                       long valid_from_offset_s = -3600, long valid_for_s = 86400 * 365) const;

  /// Issues another serving certificate signed by `ca`: subject CN `common_name` and the
  /// subjectAltName `san` ("IP:127.0.0.1,DNS:localhost"; "" = none, a CN-only certificate).
  PemPair issue_server(const std::string& common_name, const std::string& san) const;
};

}  // namespace tfjob::test
