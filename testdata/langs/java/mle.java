// Memory limit exceeded: keeps 1 MiB blocks alive (and touched) until the heap is full.
import java.util.*;

public class Hog {
    public static void main(String[] args) {
        List<byte[]> kept = new ArrayList<>();
        for (int i = 0; ; i++) {
            byte[] block = new byte[1 << 20];
            Arrays.fill(block, (byte) i);
            kept.add(block);
        }
    }
}
