package io.gpupool.localstack.secure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The secured stack's certificates, made once per data directory with the JDK's own keytool: a CA,
 * a server certificate for 127.0.0.1 and localhost signed by it (the broker's SASL_SSL listener and the
 * registry's HTTPS), and a truststore with the CA for every client. PKCS12 files under
 * {@code <data-dir>/secure/}; the CA's key stays there too, so a deleted server certificate is made again
 * under the same CA and the clients' truststore keeps working. Beside the truststore, the CA certificate
 * as PEM ({@code ca.pem}) for the clients that do not read PKCS12: librdkafka (Python, Go, C#) and Node.
 */
public final class StackCertificates {
    public static final String TYPE = "PKCS12";
    private static final String SERVER_ALIAS = "server";
    private static final String CA_ALIAS = "ca";
    private static final long KEYTOOL_TIMEOUT_SECONDS = 120;

    private final Path dir;
    private final String password;

    private StackCertificates(final Path dir, final String password) {
        this.dir = dir;
        this.password = password;
    }

    /** The certificates in {@code dir}, made now when missing; {@code password} protects every store. */
    public static StackCertificates ensure(final Path dir, final String password) {
        final StackCertificates certificates = new StackCertificates(dir, password);
        if (!Files.isRegularFile(certificates.serverKeystore()) || !Files.isRegularFile(certificates.truststore())) {
            certificates.make();
        }
        // at every start, from the truststore: a data directory made before ca.pem existed gets one, and the
        // PEM clients always trust what the Java clients trust
        certificates.writeCaPem();
        return certificates;
    }

    public Path serverKeystore() {
        return dir.resolve("server.p12");
    }

    public Path truststore() {
        return dir.resolve("truststore.p12");
    }

    /** The CA certificate of {@link #truststore()} as PEM, for clients that read no PKCS12. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    public String password() {
        return password;
    }

    /** A server-side TLS context with the server certificate (for the registry's HTTPS). */
    public SSLContext serverContext() {
        try {
            final KeyStore store = load(serverKeystore());
            final KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password.toCharArray());
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new SecuritySetupException("cannot read the server certificate " + serverKeystore() + ": " + e.getMessage()
                    + "; delete " + dir + " to have it made again", e);
        }
    }

    /** {@link #caPem()} from the truststore's CA: "BEGIN CERTIFICATE", the DER in base64 lines of 64, "END CERTIFICATE". */
    private void writeCaPem() {
        try {
            final Certificate ca = load(truststore()).getCertificate(CA_ALIAS);
            if (ca == null) {
                throw new SecuritySetupException("the truststore " + truststore() + " has no CA certificate; delete " + dir
                        + " to have the certificates made again");
            }
            final String pem = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(ca.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
            // written aside and moved: a client that reads it while a start rewrites it never sees half a certificate
            final Path tmp = caPem().resolveSibling(caPem().getFileName() + ".tmp");
            Files.writeString(tmp, pem, StandardCharsets.US_ASCII);
            Files.move(tmp, caPem(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | GeneralSecurityException e) {
            throw new SecuritySetupException("cannot write the CA certificate as PEM to " + caPem() + ": " + e.getMessage(), e);
        }
    }

    private KeyStore load(final Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            final KeyStore store = KeyStore.getInstance(TYPE);
            store.load(in, password.toCharArray());
            return store;
        }
    }

    private void make() {
        final Path ca = dir.resolve("ca.p12");
        final Path request = dir.resolve("server.csr");
        final Path signed = dir.resolve("server.crt");
        try {
            Files.createDirectories(dir);
            for (final Path p : List.of(serverKeystore(), truststore(), request, signed)) {
                Files.deleteIfExists(p);
            }
            // keytool only where the JDK has no public API (making keys and signing); each run is a JVM start,
            // so the rest is done here with KeyStore
            if (!Files.isRegularFile(ca)) {
                keytool("-genkeypair", "-alias", CA_ALIAS, "-dname", "CN=gpupool local CA", "-ext", "bc:c",
                        "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "3650", "-keystore", ca.toString());
            }
            keytool("-genkeypair", "-alias", SERVER_ALIAS, "-dname", "CN=localhost", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-validity", "825", "-keystore", serverKeystore().toString());
            keytool("-certreq", "-alias", SERVER_ALIAS, "-keystore", serverKeystore().toString(), "-file", request.toString());
            keytool("-gencert", "-alias", CA_ALIAS, "-keystore", ca.toString(), "-infile", request.toString(),
                    "-outfile", signed.toString(), "-rfc", "-validity", "825",
                    "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-ext", "KU=digitalSignature,keyEncipherment",
                    "-ext", "EKU=serverAuth,clientAuth");
            final Certificate caCertificate = load(ca).getCertificate(CA_ALIAS);
            // the server's key with its chain (signed certificate, then the CA) replaces the self-signed entry
            final KeyStore server = load(serverKeystore());
            final Key key = server.getKey(SERVER_ALIAS, password.toCharArray());
            final Certificate serverCertificate;
            try (InputStream in = Files.newInputStream(signed)) {
                serverCertificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            server.setKeyEntry(SERVER_ALIAS, key, password.toCharArray(), new Certificate[] {serverCertificate, caCertificate});
            server.setCertificateEntry(CA_ALIAS, caCertificate);
            store(server, serverKeystore());
            final KeyStore trust = KeyStore.getInstance(TYPE);
            trust.load(null, null);
            trust.setCertificateEntry(CA_ALIAS, caCertificate);
            store(trust, truststore());
            Files.deleteIfExists(request);
        } catch (IOException | GeneralSecurityException e) {
            throw new SecuritySetupException("cannot make the stack's certificates in " + dir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SecuritySetupException("interrupted while making the stack's certificates", e);
        }
    }

    private void store(final KeyStore store, final Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
    }

    private void keytool(final String... args) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", TYPE, "-storepass", password, "-keypass", password));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        final byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new SecuritySetupException("keytool " + args[0] + " took over " + KEYTOOL_TIMEOUT_SECONDS + " s");
        }
        if (process.exitValue() != 0) {
            throw new SecuritySetupException("keytool " + String.join(" ", args) + " failed (exit " + process.exitValue() + "): "
                    + new String(output, StandardCharsets.UTF_8).trim());
        }
    }
}
