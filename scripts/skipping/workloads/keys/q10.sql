select sum(l_quantity) as qty from lineitem where l_partkey between 5000 and 5200 and l_shipdate >= date '1997-01-01'
