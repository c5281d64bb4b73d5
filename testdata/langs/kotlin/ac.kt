// Accepted.
fun main() {
    val t = readLine()!!.trim().toInt()
    val out = StringBuilder()
    repeat(t) {
        val (a, b) = readLine()!!.trim().split(' ').filter { it.isNotEmpty() }.map { it.toLong() }
        out.append(a + b).append('\n')
    }
    print(out)
}
