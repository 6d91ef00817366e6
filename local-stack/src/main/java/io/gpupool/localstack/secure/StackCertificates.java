package io.gpupool.localstack.secure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The secured stack's certificates, made once per data directory with the JDK's own keytool: a CA,
 * a server certificate for 127.0.0.1 and localhost signed by it (the broker's SASL_SSL listener and the
 * registry's HTTPS), and a truststore with the CA for every client. PKCS12 files under
 * {@code <data-dir>/secure/}; the CA's key stays there too, so a deleted server certificate is made again
 * under the same CA and the clients' truststore keeps working.
 */
public final class StackCertificates {
    public static final String TYPE = "PKCS12";
    private static final String SERVER_ALIAS = "server";
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
        return certificates;
    }

    public Path serverKeystore() {
        return dir.resolve("server.p12");
    }

    public Path truststore() {
        return dir.resolve("truststore.p12");
    }

    public String password() {
        return password;
    }

    /** A server-side TLS context with the server certificate (for the registry's HTTPS). */
    public SSLContext serverContext() {
        try (InputStream in = Files.newInputStream(serverKeystore())) {
            final KeyStore store = KeyStore.getInstance(TYPE);
            store.load(in, password.toCharArray());
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

    private void make() {
        final Path ca = dir.resolve("ca.p12");
        final Path caCert = dir.resolve("ca.crt");
        final Path request = dir.resolve("server.csr");
        final Path signed = dir.resolve("server.crt");
        try {
            Files.createDirectories(dir);
            for (final Path p : List.of(serverKeystore(), truststore(), request, signed)) {
                Files.deleteIfExists(p);
            }
            if (!Files.isRegularFile(ca)) {
                keytool("-genkeypair", "-alias", "ca", "-dname", "CN=gpupool local CA", "-ext", "bc:c",
                        "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "3650", "-keystore", ca.toString());
            }
            keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caCert.toString());
            keytool("-genkeypair", "-alias", SERVER_ALIAS, "-dname", "CN=localhost", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-validity", "825", "-keystore", serverKeystore().toString());
            keytool("-certreq", "-alias", SERVER_ALIAS, "-keystore", serverKeystore().toString(), "-file", request.toString());
            keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(),
                    "-outfile", signed.toString(), "-rfc", "-validity", "825",
                    "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-ext", "KU=digitalSignature,keyEncipherment",
                    "-ext", "EKU=serverAuth,clientAuth");
            // The chain first needs its CA, then the signed certificate replaces the self-signed one.
            keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", serverKeystore().toString());
            keytool("-importcert", "-noprompt", "-alias", SERVER_ALIAS, "-file", signed.toString(),
                    "-keystore", serverKeystore().toString());
            keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caCert.toString(), "-keystore", truststore().toString());
            Files.deleteIfExists(request);
        } catch (IOException e) {
            throw new SecuritySetupException("cannot make the stack's certificates in " + dir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SecuritySetupException("interrupted while making the stack's certificates", e);
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
