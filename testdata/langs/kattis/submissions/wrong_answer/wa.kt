// Wrong answer: a - b instead of a + b.
fun main() {
    val t = readLine()!!.trim().toInt()
    repeat(t) {
        val (a, b) = readLine()!!.trim().split(' ').filter { it.isNotEmpty() }.map { it.toLong() }
        println(a - b)
    }
}
