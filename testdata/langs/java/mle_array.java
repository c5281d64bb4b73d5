// Memory limit exceeded: one array far larger than the limit (the heap refuses it at once).
public class Main {
    public static void main(String[] args) {
        long[] big = new long[200_000_000];
        big[big.length - 1] = 1;
        System.out.println(big[big.length - 1]);
    }
}
