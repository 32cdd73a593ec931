/*
 * hw_tls_schannel.c - TLS for hw_transport on Windows, with Schannel (SSPI),
 * the client side only (the worker runs on Linux). The same hw_tls_*
 * functions as hw_tls.c, so the client code does not change.
 *
 * Schannel does no I/O of its own: this file reads and writes the socket
 * and hands Schannel whole records. The socket stays blocking; a reader
 * waits with WSAPoll (the transport's timeout and deadline) and holds
 * t->lock only around DecryptMessage, a writer only around EncryptMessage,
 * so one thread may sit in a read while another writes (see
 * hw_transport.h). Everything a reader buffers (ciphertext, decrypted
 * plaintext) belongs to the one reader; the writer has its own buffer.
 *
 * Certificates: Schannel's own check is off (ISC_REQ_MANUAL_CRED_VALIDATION)
 * because it knows only the system's trust store. After the handshake the
 * worker's certificate is checked here: its chain (CertGetCertificateChain)
 * must end at a certificate of TF_WORKER_CA, or at a root of the system's
 * store when TF_WORKER_CA is unset, and its subjectAltName must name the
 * host (a DNS name, with a leftmost "*" label, or an IP address), as
 * OpenSSL checks on Linux.
 *
 * Channel binding: Schannel has no RFC 5705 exporter that wine implements,
 * so this client asks the worker for the certificate binding,
 * SHA-256 of the worker's certificate (docs/security.md).
 */
#define SECURITY_WIN32
#define SCHANNEL_USE_BLACKLISTS /* SCH_CREDENTIALS, TLS_PARAMETERS */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <subauth.h>
#include <wincrypt.h>
#include <security.h>
#include <schannel.h>

#ifndef SECURITY_FLAG_IGNORE_CERT_CN_INVALID /* wininet.h's, for the SSL policy */
#define SECURITY_FLAG_IGNORE_CERT_CN_INVALID 0x00001000
#endif

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_sha256.h"
#include "hw_time.h"
#include "hw_transport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Records are written in batches of up to this many (one send each). */
#define WRITE_RECORDS 4
/* Ciphertext read ahead: many records per recv() for bulk copies. */
#define READ_BUF    (256 * 1024)
#define CA_FILE_MAX (1024 * 1024)

struct hw_tls_ctx {
    CredHandle cred;
    HCERTSTORE ca; /* TF_WORKER_CA's certificates; NULL: the system's roots */
    int verify;
};

/* t->ssl of a Schannel link. */
struct sch_link {
    CtxtHandle ctx;
    SecPkgContext_StreamSizes sizes;
    uint8_t cert_hash[HW_SHA256_LEN]; /* SHA-256 of the worker's certificate */
    /* The reader's: in[raw_off, in_len) is ciphertext not yet decrypted;
     * plain[0, plain_len) decrypted data not yet returned (inside in). */
    uint8_t *in;
    size_t in_cap, in_len, raw_off;
    uint8_t *plain;
    size_t plain_len;
    int eof;
    /* The writer's: WRITE_RECORDS records, each header | data | trailer. */
    uint8_t *out;
    size_t rec_cap;
};

int hw_tls_available(void)
{
    return 1;
}

int hw_tls_has_exporter(void)
{
    return 0;
}

/* Words for the SECURITY_STATUS values a failed handshake gives. */
static const char *sec_str(SECURITY_STATUS s)
{
    switch (s) {
    case SEC_E_ALGORITHM_MISMATCH:
        return "no TLS version or cipher in common with the worker (it needs TLS 1.2 or later)";
    case SEC_E_ILLEGAL_MESSAGE: return "the worker sent something that is not TLS";
    case SEC_E_INVALID_TOKEN: return "the worker sent an invalid TLS message";
    case SEC_E_MESSAGE_ALTERED: return "a TLS record failed its integrity check";
    case SEC_E_DECRYPT_FAILURE: return "a TLS record could not be decrypted";
    case SEC_E_UNSUPPORTED_FUNCTION: return "the worker asked for something Schannel does not do";
    case SEC_E_INTERNAL_ERROR: return "Schannel failed (internal error)";
    case SEC_E_NO_CREDENTIALS: return "no TLS credentials";
    case SEC_E_UNTRUSTED_ROOT: return "untrusted root certificate";
    case SEC_E_CERT_EXPIRED: return "the certificate has expired";
    case SEC_E_WRONG_PRINCIPAL: return "the certificate is for another name";
    case SEC_E_INSUFFICIENT_MEMORY: return "out of memory";
    default: return "Schannel error";
    }
}

static void sec_why(char *why, size_t why_len, const char *what, SECURITY_STATUS s)
{
    snprintf(why, why_len, "%s: %s (0x%08lx)", what, sec_str(s), (unsigned long)s);
}

/* ---- the CA file --------------------------------------------------------- */

/* Every certificate of a PEM file (or one DER certificate) into a memory
 * store. NULL with a reason. */
static HCERTSTORE load_ca_file(const char *path, char *why, size_t why_len)
{
    char *text = hw_malloc(CA_FILE_MAX + 1);
    HCERTSTORE store = NULL;
    char what[256];
    int n_certs = 0;
    if (!text) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    long len = hw_os_read_small_file(path, text, CA_FILE_MAX, what, sizeof what);
    if (len < 0) {
        snprintf(why, why_len, "cannot load the CA file %s: %s", path, what);
        goto fail;
    }
    text[len] = '\0';
    store = CertOpenStore(CERT_STORE_PROV_MEMORY, 0, 0, CERT_STORE_CREATE_NEW_FLAG, NULL);
    if (!store) {
        snprintf(why, why_len, "cannot create a certificate store (error %lu)", GetLastError());
        goto fail;
    }
    static const char begin[] = "-----BEGIN CERTIFICATE-----";
    static const char end[] = "-----END CERTIFICATE-----";
    for (const char *p = strstr(text, begin); p; p = strstr(p, begin)) {
        const char *e = strstr(p, end);
        if (!e)
            break;
        e += sizeof end - 1;
        DWORD der_len = 0;
        BYTE *der = NULL;
        if (CryptStringToBinaryA(p, (DWORD)(e - p), CRYPT_STRING_BASE64HEADER, NULL, &der_len, NULL,
                                 NULL) &&
            (der = hw_malloc(der_len)) != NULL &&
            CryptStringToBinaryA(p, (DWORD)(e - p), CRYPT_STRING_BASE64HEADER, der, &der_len, NULL,
                                 NULL) &&
            CertAddEncodedCertificateToStore(store, X509_ASN_ENCODING, der, der_len,
                                             CERT_STORE_ADD_ALWAYS, NULL))
            n_certs++;
        hw_free(der);
        p = e;
    }
    if (n_certs == 0 && len > 0 && (uint8_t)text[0] == 0x30 &&
        CertAddEncodedCertificateToStore(store, X509_ASN_ENCODING, (const BYTE *)text, (DWORD)len,
                                         CERT_STORE_ADD_ALWAYS, NULL))
        n_certs = 1; /* a DER file */
    if (n_certs == 0) {
        snprintf(why, why_len, "cannot load the CA file %s: no certificate in it", path);
        goto fail;
    }
    hw_free(text);
    return store;
fail:
    if (store)
        CertCloseStore(store, 0);
    hw_free(text);
    return NULL;
}

/* ---- contexts ------------------------------------------------------------ */

struct hw_tls_ctx *hw_tls_server_ctx(const char *cert_file, const char *key_file, char *why,
                                     size_t why_len)
{
    (void)cert_file;
    (void)key_file;
    snprintf(why, why_len, "the Windows build is a client only; hip-worker runs on Linux");
    return NULL;
}

/* TLS 1.2 and 1.3 through SCH_CREDENTIALS (Windows 10 1809 and later);
 * systems that do not know that structure (older Windows, wine) get TLS 1.2
 * through SCHANNEL_CRED. */
static SECURITY_STATUS acquire(CredHandle *cred)
{
    TimeStamp expiry;
    TLS_PARAMETERS tp;
    memset(&tp, 0, sizeof tp);
    tp.grbitDisabledProtocols =
        SP_PROT_SSL2_CLIENT | SP_PROT_SSL3_CLIENT | SP_PROT_TLS1_0_CLIENT | SP_PROT_TLS1_1_CLIENT;
    SCH_CREDENTIALS sc;
    memset(&sc, 0, sizeof sc);
    sc.dwVersion = SCH_CREDENTIALS_VERSION;
    sc.dwFlags =
        SCH_CRED_MANUAL_CRED_VALIDATION | SCH_CRED_NO_DEFAULT_CREDS | SCH_USE_STRONG_CRYPTO;
    sc.cTlsParameters = 1;
    sc.pTlsParameters = &tp;
    SECURITY_STATUS s =
        AcquireCredentialsHandleW(NULL, (SEC_WCHAR *)UNISP_NAME_W, SECPKG_CRED_OUTBOUND, NULL, &sc,
                                  NULL, NULL, cred, &expiry);
    if (s == SEC_E_OK) {
        hw_debug("Schannel: SCH_CREDENTIALS (TLS 1.2 and 1.3)");
        return s;
    }
    hw_debug("Schannel: no SCH_CREDENTIALS (0x%08lx); SCHANNEL_CRED, TLS 1.2", (unsigned long)s);
    SCHANNEL_CRED old;
    memset(&old, 0, sizeof old);
    old.dwVersion = SCHANNEL_CRED_VERSION;
    old.grbitEnabledProtocols = SP_PROT_TLS1_2_CLIENT;
    old.dwFlags = SCH_CRED_MANUAL_CRED_VALIDATION | SCH_CRED_NO_DEFAULT_CREDS;
    return AcquireCredentialsHandleW(NULL, (SEC_WCHAR *)UNISP_NAME_W, SECPKG_CRED_OUTBOUND, NULL,
                                     &old, NULL, NULL, cred, &expiry);
}

struct hw_tls_ctx *hw_tls_client_ctx(const char *ca_file, int verify, char *why, size_t why_len)
{
    struct hw_tls_ctx *c = hw_calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    c->verify = verify;
    if (ca_file && *ca_file && !(c->ca = load_ca_file(ca_file, why, why_len)))
        goto fail;
    SECURITY_STATUS s = acquire(&c->cred);
    if (s != SEC_E_OK) {
        sec_why(why, why_len, "cannot create a TLS context", s);
        SecInvalidateHandle(&c->cred);
        goto fail;
    }
    return c;
fail:
    hw_tls_ctx_free(c);
    return NULL;
}

void hw_tls_ctx_free(struct hw_tls_ctx *c)
{
    if (!c)
        return;
    if (SecIsValidHandle(&c->cred))
        FreeCredentialsHandle(&c->cred);
    if (c->ca)
        CertCloseStore(c->ca, 0);
    hw_free(c);
}

/* ---- certificate checks -------------------------------------------------- */

static int ascii_ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

/* RFC 6125: exact (case-insensitive), or "*.rest" matching one whole
 * leftmost label of host. */
static int dns_matches(const char *pattern, const char *host)
{
    size_t pl = strlen(pattern), hl = strlen(host);
    if (pl && pattern[pl - 1] == '.')
        pl--;
    if (hl && host[hl - 1] == '.')
        hl--;
    if (pl >= 2 && pattern[0] == '*' && pattern[1] == '.') {
        const char *dot = memchr(host, '.', hl);
        if (!dot || dot == host)
            return 0;
        size_t rest = hl - (size_t)(dot - host);
        /* Not "*.com"-like: the wildcard's rest has a dot of its own. */
        return rest == pl - 1 && memchr(pattern + 2, '.', pl - 2) != NULL &&
               ascii_ieq(pattern + 1, dot, rest);
    }
    return pl == hl && ascii_ieq(pattern, host, hl);
}

/* Whether the certificate's subjectAltName (or, without one, its common
 * name) names host. */
static int name_matches(PCCERT_CONTEXT cert, const char *host)
{
    uint8_t ip[16];
    DWORD ip_len = 0;
    if (inet_pton(AF_INET, host, ip) == 1)
        ip_len = 4;
    else if (inet_pton(AF_INET6, host, ip) == 1)
        ip_len = 16;
    PCERT_EXTENSION ext = CertFindExtension(szOID_SUBJECT_ALT_NAME2, cert->pCertInfo->cExtension,
                                            cert->pCertInfo->rgExtension);
    if (ext) {
        CERT_ALT_NAME_INFO *alt = NULL;
        DWORD alt_len = 0;
        int ok = 0;
        if (!CryptDecodeObjectEx(X509_ASN_ENCODING, X509_ALTERNATE_NAME, ext->Value.pbData,
                                 ext->Value.cbData, CRYPT_DECODE_ALLOC_FLAG, NULL, &alt, &alt_len))
            return 0;
        for (DWORD i = 0; i < alt->cAltEntry && !ok; i++) {
            const CERT_ALT_NAME_ENTRY *e = &alt->rgAltEntry[i];
            if (ip_len && e->dwAltNameChoice == CERT_ALT_NAME_IP_ADDRESS)
                ok = e->IPAddress.cbData == ip_len && memcmp(e->IPAddress.pbData, ip, ip_len) == 0;
            else if (!ip_len && e->dwAltNameChoice == CERT_ALT_NAME_DNS_NAME) {
                char name[256];
                int n = WideCharToMultiByte(CP_UTF8, 0, e->pwszDNSName, -1, name, sizeof name, NULL,
                                            NULL);
                ok = n > 0 && dns_matches(name, host);
            }
        }
        LocalFree(alt);
        return ok;
    }
    if (ip_len)
        return 0;
    char cn[256];
    DWORD n =
        CertGetNameStringA(cert, CERT_NAME_ATTR_TYPE, 0, (void *)szOID_COMMON_NAME, cn, sizeof cn);
    return n > 1 && dns_matches(cn, host);
}

/* What a chain's error bits mean, the first that applies. */
static const char *chain_str(DWORD e)
{
    if (e & CERT_TRUST_IS_NOT_TIME_VALID)
        return "a certificate has expired or is not yet valid";
    if (e & CERT_TRUST_IS_REVOKED)
        return "a certificate is revoked";
    if (e & CERT_TRUST_IS_NOT_SIGNATURE_VALID)
        return "a certificate's signature is invalid";
    if (e & CERT_TRUST_IS_NOT_VALID_FOR_USAGE)
        return "the certificate is not for TLS servers";
    if (e & (CERT_TRUST_IS_PARTIAL_CHAIN | CERT_TRUST_IS_UNTRUSTED_ROOT))
        return "unable to get local issuer certificate";
    if (e & CERT_TRUST_IS_CYCLIC)
        return "the chain is cyclic";
    return "the chain is invalid";
}

/* 0 when cert is the worker's: chained to a trusted root and naming host.
 * Else -1 with "certificate verification failed: ..." in why. */
static int check_cert(const struct hw_tls_ctx *c, PCCERT_CONTEXT cert, const char *host, char *why,
                      size_t why_len)
{
    PCCERT_CHAIN_CONTEXT chain = NULL;
    HCERTSTORE extra = NULL;
    int rc = -1;
    /* The chain may use the intermediates the worker sent and the CA file. */
    extra = CertOpenStore(CERT_STORE_PROV_COLLECTION, 0, 0, 0, NULL);
    if (!extra || (cert->hCertStore && !CertAddStoreToCollection(extra, cert->hCertStore, 0, 0)) ||
        (c->ca && !CertAddStoreToCollection(extra, c->ca, 0, 0))) {
        snprintf(why, why_len,
                 "certificate verification failed: cannot build the chain (error %lu)",
                 GetLastError());
        goto out;
    }
    LPSTR usage[] = { (LPSTR)szOID_PKIX_KP_SERVER_AUTH };
    CERT_CHAIN_PARA para;
    memset(&para, 0, sizeof para);
    para.cbSize = sizeof para;
    para.RequestedUsage.dwType = USAGE_MATCH_TYPE_OR;
    para.RequestedUsage.Usage.cUsageIdentifier = 1;
    para.RequestedUsage.Usage.rgpszUsageIdentifier = usage;
    if (!CertGetCertificateChain(NULL, cert, NULL, extra, &para, 0, NULL, &chain)) {
        snprintf(why, why_len,
                 "certificate verification failed: cannot build the chain (error %lu)",
                 GetLastError());
        goto out;
    }
    DWORD err = chain->TrustStatus.dwErrorStatus;
    /* No revocation lists are fetched (like OpenSSL's default). */
    err &= ~(DWORD)(CERT_TRUST_REVOCATION_STATUS_UNKNOWN | CERT_TRUST_IS_OFFLINE_REVOCATION);
    if (c->ca) {
        /* Trusted only if the chain ends at a certificate of the CA file:
         * the system's roots do not count, as with OpenSSL's CA file. */
        const CERT_SIMPLE_CHAIN *sc = chain->cChain ? chain->rgpChain[0] : NULL;
        PCCERT_CONTEXT top =
            sc && sc->cElement ? sc->rgpElement[sc->cElement - 1]->pCertContext : NULL;
        PCCERT_CONTEXT found = top ? CertFindCertificateInStore(c->ca, X509_ASN_ENCODING, 0,
                                                                CERT_FIND_EXISTING, top, NULL)
                                   : NULL;
        if (found) {
            CertFreeCertificateContext(found);
            err &= ~(DWORD)CERT_TRUST_IS_UNTRUSTED_ROOT;
        } else {
            err |= CERT_TRUST_IS_PARTIAL_CHAIN;
        }
    }
    if (err) {
        snprintf(why, why_len, "certificate verification failed: %s (chain status 0x%lx)",
                 chain_str(err), (unsigned long)err);
        goto out;
    }
    if (!c->ca) {
        /* The system's own SSL policy too (weak keys, constraints). */
        CERT_CHAIN_POLICY_PARA pp;
        CERT_CHAIN_POLICY_STATUS ps;
        SSL_EXTRA_CERT_CHAIN_POLICY_PARA ssl;
        memset(&pp, 0, sizeof pp);
        memset(&ps, 0, sizeof ps);
        memset(&ssl, 0, sizeof ssl);
        ssl.cbSize = sizeof ssl;
        ssl.dwAuthType = AUTHTYPE_SERVER;
        ssl.fdwChecks = SECURITY_FLAG_IGNORE_CERT_CN_INVALID; /* checked below */
        pp.cbSize = sizeof pp;
        pp.pvExtraPolicyPara = &ssl;
        ps.cbSize = sizeof ps;
        if (!CertVerifyCertificateChainPolicy(CERT_CHAIN_POLICY_SSL, chain, &pp, &ps) ||
            ps.dwError) {
            snprintf(why, why_len,
                     "certificate verification failed: the system's SSL policy refuses it "
                     "(0x%08lx)",
                     (unsigned long)ps.dwError);
            goto out;
        }
    }
    if (host && !name_matches(cert, host)) {
        snprintf(why, why_len,
                 "certificate verification failed: the certificate does not name %s "
                 "(subjectAltName)",
                 host);
        goto out;
    }
    rc = 0;
out:
    if (chain)
        CertFreeCertificateChain(chain);
    if (extra)
        CertCloseStore(extra, 0);
    return rc;
}

/* ---- the handshake ------------------------------------------------------- */

static int send_token(int fd, SecBuffer *b)
{
    int rc = 0;
    if (b->pvBuffer && b->cbBuffer)
        rc = hw_write_full(fd, b->pvBuffer, b->cbBuffer);
    if (b->pvBuffer)
        FreeContextBuffer(b->pvBuffer);
    b->pvBuffer = NULL;
    b->cbBuffer = 0;
    return rc;
}

/* More bytes into l->in before deadline. 1 read, 0 end of stream, -1
 * error or timeout (errno). */
static int read_more_until(int fd, struct sch_link *l, int64_t deadline)
{
    if (l->in_len == l->in_cap) {
        errno = EMSGSIZE;
        return -1;
    }
    int64_t left = deadline - (int64_t)hw_now_ms();
    if (left <= 0 || hw_sock_poll_in(fd, (int)left) == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    for (;;) {
        ssize_t r = hw_sock_recv(fd, l->in + l->in_len, l->in_cap - l->in_len);
        if (r > 0) {
            l->in_len += (size_t)r;
            return 1;
        }
        if (r == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

static const DWORD isc_flags = ISC_REQ_SEQUENCE_DETECT | ISC_REQ_REPLAY_DETECT |
                               ISC_REQ_CONFIDENTIALITY | ISC_REQ_ALLOCATE_MEMORY | ISC_REQ_STREAM |
                               ISC_REQ_EXTENDED_ERROR | ISC_REQ_MANUAL_CRED_VALIDATION;

static int handshake(int fd, struct hw_tls_ctx *c, struct sch_link *l, const char *host,
                     int timeout_ms, char *why, size_t why_len)
{
    int64_t deadline = (int64_t)hw_now_ms() + timeout_ms;
    wchar_t whost[256] = L"";
    if (host)
        MultiByteToWideChar(CP_UTF8, 0, host, -1, whost, 256);
    SecBuffer out[1] = { { 0, SECBUFFER_TOKEN, NULL } };
    SecBufferDesc out_desc = { SECBUFFER_VERSION, 1, out };
    ULONG attrs = 0;
    int have_ctx = 0;
    /* The first call makes the ClientHello (no input). */
    SECURITY_STATUS s = InitializeSecurityContextW(&c->cred, NULL, host ? whost : NULL, isc_flags,
                                                   0, 0, NULL, 0, &l->ctx, &out_desc, &attrs, NULL);
    if (s != SEC_I_CONTINUE_NEEDED) {
        sec_why(why, why_len, "TLS handshake failed", s);
        return -1;
    }
    have_ctx = 1;
    if (send_token(fd, &out[0]) < 0)
        goto io_fail;
    for (;;) {
        if (l->in_len == 0 || s == SEC_E_INCOMPLETE_MESSAGE) {
            int r = read_more_until(fd, l, deadline);
            if (r == 0) {
                snprintf(why, why_len,
                         "TLS handshake: the peer closed the connection "
                         "(does the worker have --tls-cert?)");
                goto fail;
            }
            if (r < 0)
                goto io_fail;
        }
        SecBuffer in[2] = { { (unsigned long)l->in_len, SECBUFFER_TOKEN, l->in },
                            { 0, SECBUFFER_EMPTY, NULL } };
        SecBufferDesc in_desc = { SECBUFFER_VERSION, 2, in };
        out[0] = (SecBuffer){ 0, SECBUFFER_TOKEN, NULL };
        s = InitializeSecurityContextW(&c->cred, &l->ctx, host ? whost : NULL, isc_flags, 0, 0,
                                       &in_desc, 0, NULL, &out_desc, &attrs, NULL);
        if (s == SEC_E_INCOMPLETE_MESSAGE)
            continue;
        /* Tokens (and alerts on failure) go out whatever s is. */
        if (send_token(fd, &out[0]) < 0 && (s == SEC_E_OK || s == SEC_I_CONTINUE_NEEDED))
            goto io_fail;
        if (s == SEC_E_OK || s == SEC_I_CONTINUE_NEEDED || s == SEC_I_INCOMPLETE_CREDENTIALS) {
            /* Unused input (the next handshake message, or the first
             * records) stays at the front of l->in. */
            size_t extra = in[1].BufferType == SECBUFFER_EXTRA ? in[1].cbBuffer : 0;
            memmove(l->in, l->in + l->in_len - extra, extra);
            l->in_len = extra;
            if (s == SEC_E_OK)
                return 0;
            continue;
        }
        sec_why(why, why_len, "TLS handshake failed", s);
        goto fail;
    }
io_fail:
    snprintf(why, why_len, "TLS handshake: %s",
             errno == ETIMEDOUT ? "timed out" : hw_os_strerror(errno));
fail:
    if (have_ctx)
        DeleteSecurityContext(&l->ctx);
    return -1;
}

static void link_free(struct sch_link *l)
{
    if (!l)
        return;
    hw_free(l->in);
    hw_free(l->out);
    hw_free(l);
}

int hw_tls_connect(struct hw_transport *t, struct hw_tls_ctx *c, const char *host, int timeout_ms,
                   char *why, size_t why_len)
{
    struct sch_link *l = hw_calloc(1, sizeof *l);
    PCCERT_CONTEXT cert = NULL;
    int have_ctx = 0;
    if (!l || !(l->in = hw_malloc(READ_BUF))) {
        snprintf(why, why_len, "out of memory");
        goto fail;
    }
    l->in_cap = READ_BUF;
    /* Reads wait in WSAPoll; a receive timeout left on the socket would
     * cut a long blocking read short. */
    hw_sock_set_rcvtimeo(t->fd, 0);
    if (handshake(t->fd, c, l, host, timeout_ms, why, why_len) < 0)
        goto fail;
    have_ctx = 1;
    SECURITY_STATUS s = QueryContextAttributesW(&l->ctx, SECPKG_ATTR_STREAM_SIZES, &l->sizes);
    if (s != SEC_E_OK) {
        sec_why(why, why_len, "TLS: cannot read the record sizes", s);
        goto fail;
    }
    if (hw_log_debug_enabled()) {
        SecPkgContext_ConnectionInfo ci;
        memset(&ci, 0, sizeof ci);
        QueryContextAttributesW(&l->ctx, SECPKG_ATTR_CONNECTION_INFO, &ci);
        const char *v = (ci.dwProtocol & SP_PROT_TLS1_3_CLIENT)   ? "TLS 1.3"
                        : (ci.dwProtocol & SP_PROT_TLS1_2_CLIENT) ? "TLS 1.2"
                                                                  : "TLS (older)";
        hw_debug("Schannel: %s (protocol 0x%lx), cipher 0x%x of %lu bits, records up to %lu bytes",
                 v, (unsigned long)ci.dwProtocol, (unsigned)ci.aiCipher,
                 (unsigned long)ci.dwCipherStrength, (unsigned long)l->sizes.cbMaximumMessage);
    }
    s = QueryContextAttributesW(&l->ctx, SECPKG_ATTR_REMOTE_CERT_CONTEXT, &cert);
    if (s != SEC_E_OK || !cert) {
        sec_why(why, why_len, "TLS: the worker sent no certificate", s);
        goto fail;
    }
    if (c->verify && check_cert(c, cert, host, why, why_len) < 0)
        goto fail;
    struct hw_sha256 h;
    hw_sha256_init(&h);
    hw_sha256_update(&h, cert->pbCertEncoded, cert->cbCertEncoded);
    hw_sha256_final(&h, l->cert_hash);
    l->rec_cap = l->sizes.cbHeader + l->sizes.cbMaximumMessage + l->sizes.cbTrailer;
    /* Records that arrived with the handshake's end are still in l->in. */
    if (l->in_cap < l->rec_cap || !(l->out = hw_malloc(l->rec_cap * WRITE_RECORDS))) {
        snprintf(why, why_len, "cannot set up TLS");
        goto fail;
    }
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        snprintf(why, why_len, "cannot set up TLS");
        goto fail;
    }
    CertFreeCertificateContext(cert);
    t->ssl = l;
    return 0;
fail:
    if (cert)
        CertFreeCertificateContext(cert);
    if (have_ctx)
        DeleteSecurityContext(&l->ctx);
    link_free(l);
    return -1;
}

int hw_tls_accept(struct hw_transport *t, struct hw_tls_ctx *ctx, int timeout_ms, char *why,
                  size_t why_len)
{
    (void)t;
    (void)ctx;
    (void)timeout_ms;
    snprintf(why, why_len, "the Windows build is a client only; hip-worker runs on Linux");
    return -1;
}

/* ---- records ------------------------------------------------------------- */

/* Decrypts the next whole record in l->in. 1 (maybe with no data: a
 * record of no plaintext), 0 when more bytes are needed, -1 (errno; 0 at
 * the worker's close_notify). */
static int decrypt_one(struct hw_transport *t, struct sch_link *l)
{
    SecBuffer b[4] = { { (unsigned long)(l->in_len - l->raw_off), SECBUFFER_DATA,
                         l->in + l->raw_off },
                       { 0, SECBUFFER_EMPTY, NULL },
                       { 0, SECBUFFER_EMPTY, NULL },
                       { 0, SECBUFFER_EMPTY, NULL } };
    SecBufferDesc d = { SECBUFFER_VERSION, 4, b };
    pthread_mutex_lock(&t->lock);
    SECURITY_STATUS s = DecryptMessage(&l->ctx, &d, 0, NULL);
    pthread_mutex_unlock(&t->lock);
    if (s == SEC_E_INCOMPLETE_MESSAGE)
        return 0;
    if (s == SEC_I_CONTEXT_EXPIRED) {
        l->eof = 1;
        errno = 0;
        return -1;
    }
    if (s != SEC_E_OK) {
        /* SEC_I_RENEGOTIATE included: the worker never renegotiates nor
         * sends tickets or key updates, so nothing needs the handshake
         * again. */
        errno = EPROTO;
        return -1;
    }
    size_t extra = 0;
    for (int i = 0; i < 4; i++) {
        if (b[i].BufferType == SECBUFFER_DATA) {
            l->plain = b[i].pvBuffer;
            l->plain_len = b[i].cbBuffer;
        } else if (b[i].BufferType == SECBUFFER_EXTRA) {
            extra = b[i].cbBuffer;
        }
    }
    l->raw_off = l->in_len - extra;
    return 1;
}

ssize_t hw_tls_recv(struct hw_transport *t, void *buf, size_t n)
{
    struct sch_link *l = t->ssl;
    for (;;) {
        if (l->plain_len) {
            size_t k = n < l->plain_len ? n : l->plain_len;
            memcpy(buf, l->plain, k);
            l->plain += k;
            l->plain_len -= k;
            return (ssize_t)k;
        }
        if (l->eof) {
            errno = 0;
            return 0;
        }
        if (l->raw_off < l->in_len) {
            int r = decrypt_one(t, l);
            if (r > 0)
                continue;
            if (r < 0)
                return errno == 0 ? 0 : -1;
        }
        /* A partial record (or nothing) is left: move it to the front. */
        if (l->raw_off) {
            memmove(l->in, l->in + l->raw_off, l->in_len - l->raw_off);
            l->in_len -= l->raw_off;
            l->raw_off = 0;
        }
        int budget = hw_tx_wait_budget(t);
        if (budget < 0)
            return -1;
        if (budget > 0) {
            int p = hw_sock_poll_in(t->fd, budget);
            if (p < 0)
                return -1;
            if (p == 0) {
                errno = ETIMEDOUT;
                return -1;
            }
        }
        ssize_t r = hw_sock_recv(t->fd, l->in + l->in_len, l->in_cap - l->in_len);
        if (r == 0) {
            errno = 0;
            return 0;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        l->in_len += (size_t)r;
    }
}

/* Encrypts the record whose plaintext is at rec + cbHeader (len bytes) in
 * place; its length on the wire, or 0 on failure. */
static size_t encrypt_one(struct hw_transport *t, struct sch_link *l, uint8_t *rec, size_t len)
{
    SecBuffer b[4] = { { l->sizes.cbHeader, SECBUFFER_STREAM_HEADER, rec },
                       { (unsigned long)len, SECBUFFER_DATA, rec + l->sizes.cbHeader },
                       { l->sizes.cbTrailer, SECBUFFER_STREAM_TRAILER,
                         rec + l->sizes.cbHeader + len },
                       { 0, SECBUFFER_EMPTY, NULL } };
    SecBufferDesc d = { SECBUFFER_VERSION, 4, b };
    pthread_mutex_lock(&t->lock);
    SECURITY_STATUS s = EncryptMessage(&l->ctx, 0, &d, 0);
    pthread_mutex_unlock(&t->lock);
    if (s != SEC_E_OK)
        return 0;
    /* The trailer may be shorter than its maximum: the record is header,
     * data, trailer back to back, as Schannel laid them out. */
    return b[0].cbBuffer + b[1].cbBuffer + b[2].cbBuffer;
}

/* Encrypts the record being built (fill bytes) and, when the batch is
 * full or this is the end, sends the batch. 0 or -1. */
static int seal(struct hw_transport *t, struct sch_link *l, size_t *wire, size_t *fill, int end)
{
    if (*fill) {
        size_t w = encrypt_one(t, l, l->out + *wire, *fill);
        if (w == 0) {
            errno = EPROTO;
            return -1;
        }
        *wire += w;
        *fill = 0;
    }
    if (*wire && (end || *wire + l->rec_cap > l->rec_cap * WRITE_RECORDS)) {
        if (hw_write_full(t->fd, l->out, *wire) < 0)
            return -1;
        *wire = 0;
    }
    return 0;
}

/* Gathers iov into records of at most cbMaximumMessage bytes, encrypted in
 * the writer's buffer and sent up to WRITE_RECORDS at a time. */
int hw_tls_writev(struct hw_transport *t, const struct iovec *iov, int iovcnt)
{
    struct sch_link *l = t->ssl;
    const size_t max = l->sizes.cbMaximumMessage;
    size_t wire = 0; /* encrypted bytes waiting in l->out */
    size_t fill = 0; /* plaintext of the record being built, after wire */
    for (int i = 0; i < iovcnt; i++) {
        const uint8_t *p = iov[i].iov_base;
        size_t n = iov[i].iov_len;
        while (n > 0) {
            size_t take = max - fill < n ? max - fill : n;
            memcpy(l->out + wire + l->sizes.cbHeader + fill, p, take);
            fill += take;
            p += take;
            n -= take;
            if (fill == max && seal(t, l, &wire, &fill, 0) < 0)
                return -1;
        }
    }
    return seal(t, l, &wire, &fill, 1);
}

/* ---- the rest ------------------------------------------------------------ */

int hw_tls_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    (void)t;
    (void)out;
    return -1; /* no exporter: the client asks for the certificate binding */
}

int hw_tls_cert_binding(struct hw_transport *t, uint8_t out[HW_TLS_CHANNEL_BINDING_LEN])
{
    struct sch_link *l = t->ssl;
    memcpy(out, l->cert_hash, HW_TLS_CHANNEL_BINDING_LEN);
    return 0;
}

int hw_tls_pending(struct hw_transport *t)
{
    struct sch_link *l = t->ssl;
    /* Called by the reader. Whole records that came with earlier reads
     * count too, so decrypt them now: the socket will not say so. */
    while (!l->plain_len && !l->eof && l->raw_off < l->in_len) {
        int r = decrypt_one(t, l);
        if (r == 0)
            return 0;
        if (r < 0)
            return 1; /* the next read reports it */
    }
    return l->plain_len || l->eof ? 1 : 0;
}

void hw_tls_free(struct hw_transport *t)
{
    struct sch_link *l = t->ssl;
    if (!l)
        return;
    DeleteSecurityContext(&l->ctx);
    link_free(l);
    t->ssl = NULL;
    pthread_mutex_destroy(&t->lock);
}
