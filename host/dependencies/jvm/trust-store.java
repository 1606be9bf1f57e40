import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;

/**
 * Writes a PKCS12 trust store (args[1], password args[2]) holding every certificate of the PEM
 * bundle args[0]: Java reads no PEM bundle, and keytool imports one certificate a run.
 * Run by jvm-setup.sh with Java's single-file launcher (docs/real-repositories.md#maven-and-gradle).
 */
public class DexTrustStore {
    public static void main(String[] args) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int n = 0;
        try (FileInputStream in = new FileInputStream(args[0])) {
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + n++, certificate);
            }
        }
        try (FileOutputStream out = new FileOutputStream(args[1])) {
            store.store(out, args[2].toCharArray());
        }
    }
}
